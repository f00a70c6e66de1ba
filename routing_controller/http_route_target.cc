#include "routing_controller/http_route_target.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/url.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "routing/route_plan.h"
#include "routing/row_stability.h"
#include "routing_controller/routing_metrics.h"
#include "routing_controller/service_demand.h"
#include "routing_controller/target_booker.h"
#include "routing_controller/target_writes.h"

namespace carbonroute::routing {
namespace {

// Whether an HTTPRoute keeps the weights it holds: row_stability.h's rule over its backends
// (each priced at the endpoint-weighted mean of its localities' intensities, allowed while
// every locality it serves from is), the held row its weights as percentages.
bool BackendsStay(const std::vector<Backend>& held, const BackendLocalities& per_backend,
                  const RouteRow& row, const std::map<std::string, int64_t>& planned,
                  const RoutingPolicy& policy, absl::Time now,
                  std::map<std::string, absl::Time>& changed) {
  RoutePlan plan;
  RouteRow backends_row{.origin = row.origin};
  for (const auto& [key, localities] : per_backend) {
    RouteFlow flow{.destination = key, .allowed = true};
    double endpoints = 0, grams = 0;
    bool priced = true;
    for (const auto& [locality, n] : localities) {
      if (n <= 0) continue;
      const std::string& wanted = locality;  // (clang: no capture of a structured binding)
      const auto it = absl::c_find_if(
          row.flows, [&wanted](const RouteFlow& f) { return f.destination == wanted; });
      if (it == row.flows.end() || !it->grams_per_kwh) {
        priced = false;
        continue;
      }
      flow.allowed = flow.allowed && it->allowed;
      endpoints += n;
      grams += n * *it->grams_per_kwh;
    }
    if (priced && endpoints > 0) flow.grams_per_kwh = grams / endpoints;
    backends_row.flows.push_back(std::move(flow));
  }
  plan.rows.push_back(std::move(backends_row));
  DistributeRow planned_row{.from = row.origin};
  for (const auto& [key, percent] : planned) {
    if (percent > 0) planned_row.to.emplace_back(key, percent);
  }
  plan.setting.distribute.push_back(planned_row);
  std::map<std::string, double> held_weights;
  for (const Backend& backend : held) held_weights[backend.Key()] += backend.weight;
  std::vector<DestinationShare> held_shares;
  for (const auto& [key, weight] : held_weights) held_shares.push_back({key, weight});
  absl::StatusOr<std::vector<LocalityWeight>> held_percents = PercentWeights(held_shares);
  if (!held_percents.ok()) return false;  // no weight at all: write
  DistributeRow held_row{.from = row.origin};
  for (const LocalityWeight& weight : *held_percents) {
    held_row.to.emplace_back(weight.locality, weight.percent);
  }
  const std::vector<DistributeRow> rows =
      StableRows({held_row}, plan, policy.carbon_tolerance, policy.min_stay, now, changed);
  return !rows.empty() && SameRows({held_row}, {rows.front()});
}

// Books an HTTPRoute's interval: `held` ran in it, `planned` is this pass's.
void BookRoute(TargetBooker& booker, const RoutingPolicy& policy, const std::string& key,
               const RoutePlan& plan, const TargetDemand& demand, const std::vector<Backend>& held,
               const std::vector<Backend>& planned, const RouteKept& kept,
               const BackendLocalities& per_backend, absl::Time now) {
  if (!booker.enabled() || plan.rows.empty()) return;
  const std::string& origin = plan.rows.front().origin;
  bool moved = false;
  for (std::size_t i = 0; i < held.size() && i < planned.size(); ++i) {
    moved = moved || held[i].weight != planned[i].weight;
  }
  // The weights its owner set: kept at carbonroute's first write, else what it holds.
  absl::StatusOr<std::vector<Backend>> owner = held;
  if (!kept.original.empty()) owner = KeptBackends(kept.original);
  OriginShares alternative;
  if (owner.ok()) alternative = {{origin, BackendLocalityShares(*owner, per_backend)}};
  booker.Book(policy, key, plan, demand, moved,
              {{origin, BackendLocalityShares(held, per_backend)}}, std::move(alternative),
              {{origin, BackendLocalityShares(planned, per_backend)}}, now);
}

}  // namespace

TargetOutcome ReconcileHttpRoute(TargetContext& context, const RoutingPolicy& policy,
                                 const TargetRef& target, const placement::PlacementModel& model,
                                 absl::Time now) {
  TargetOutcome outcome{.target = target};
  const std::string what = target.Describe(policy.namespace_name);
  auto refuse = [&](std::string result, std::string reason, const std::string& message) {
    return TargetWrites::Refuse(outcome, what, std::move(result), std::move(reason), message);
  };
  if (policy.origins.size() != 1) {
    return refuse("invalid", "Invalid",
                  "an HTTPRoute has one origin, its Gateway's locality: give exactly one in "
                  "spec.origins");
  }
  const std::string path = TargetPath(TargetKind::kHttpRoute, policy.namespace_name, target.name);
  absl::StatusOr<std::string> body = context.api.Get(path);
  if (!body.ok()) return context.writes.RefuseGet(outcome, what, body.status());
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> route = document.Parse(*body, "HTTPRoute");
  absl::StatusOr<std::vector<Backend>> backends =
      route.ok() ? ReadBackends(*route, policy.namespace_name) : route.status();
  if (!backends.ok()) return refuse("invalid", "Invalid", std::string(backends.status().message()));
  if (backends->empty()) return refuse("invalid", "Invalid", "it has no Service backend");
  const RouteKept kept = ReadRouteKept(*route);
  // Each backend Service's ready endpoints per locality: all in its region when the Service is
  // labelled with one (topology.kubernetes.io/region), else where its endpoints' Nodes are.
  BackendLocalities per_backend;
  std::map<std::string, double> endpoints;
  // Every client of a backend is the Gateway's: one origin, whatever its Pods' Nodes.
  double requests = 0;
  bool requests_failed = false;
  TargetDemand demand;  // the Gateway's requests/s, and every backend's Pods
  for (const Backend& backend : *backends) {
    if (per_backend.contains(backend.Key())) continue;
    const ServiceRef service{.namespace_name = backend.namespace_name, .name = backend.name};
    absl::StatusOr<EndpointCount> count = context.demand.Endpoints(service);
    if (!count.ok()) return refuse("error", "Error", std::string(count.status().message()));
    demand.pods[service.namespace_name].insert(count->pods.begin(), count->pods.end());
    absl::StatusOr<std::string> service_body =
        context.api.Get(absl::StrCat("/api/v1/namespaces/", net::UrlEncode(service.namespace_name),
                                     "/services/", net::UrlEncode(service.name)));
    std::string region;
    if (service_body.ok()) {
      kube::JsonDocument service_document;
      if (absl::StatusOr<kube::JsonField> object = service_document.Parse(*service_body, "Service");
          object.ok()) {
        region = (*object)["metadata"]["labels"][kube::kRegionLabel].OptionalString().value_or("");
      }
    }
    std::map<std::string, double>& mine = per_backend[backend.Key()];
    if (!region.empty()) {
      double total = count->unlocated;
      for (const auto& [locality, n] : count->by_locality) total += n;
      mine[absl::StrCat(region, "/*")] = total;
    } else {
      mine = count->by_locality;
    }
    for (const auto& [locality, n] : mine) endpoints[locality] += n;
    if (!context.demand.measuring()) continue;
    absl::StatusOr<ClientRates> rates = context.demand.Rates(service);
    if (!rates.ok()) {
      requests_failed = true;
      continue;
    }
    requests += rates->unattributed;
    for (const ClientRate& client : rates->clients) requests += client.per_second;
  }
  if (context.demand.measuring() && !requests_failed) {
    demand.requests_per_second =
        std::map<std::string, double>{{policy.origins.front().locality, requests}};
  }
  absl::StatusOr<RoutePlan> plan =
      PlanRoutes(policy, endpoints, model, now, /*endpoints_are_origins=*/false);
  if (!plan.ok()) return refuse("invalid", "Invalid", std::string(plan.status().message()));
  outcome.plan = *std::move(plan);
  if (!outcome.plan->decided || outcome.plan->rows.empty()) {
    return refuse("data_missing", "DataMissing",
                  absl::StrCat("no backend has a current reading (",
                               absl::StrJoin(outcome.plan->without_reading, ", "),
                               "): the route is kept as it is"));
  }
  // The origin's share of each locality, split over its backends by their endpoints.
  const RouteRow& row = outcome.plan->rows.front();
  absl::StatusOr<std::map<std::string, int64_t>> percents = BackendPercents(row, per_backend);
  if (!percents.ok()) return refuse("invalid", "Invalid", std::string(percents.status().message()));
  const std::map<std::string, int64_t>& weights = *percents;
  // Against flapping, as for a rule's rows (routing/row_stability.h), over the backends.
  const std::string key = absl::StrCat(policy.uid, "/HTTPRoute/", target.name);
  const bool stays =
      BackendsStay(*backends, per_backend, row, weights, policy, now, context.row_changed[key]);
  std::vector<Backend> reweighted = stays ? *backends : Reweighted(*backends, weights);
  BookRoute(context.booker, policy, key, *outcome.plan, demand, *backends, reweighted, kept,
            per_backend, now);
  std::vector<std::string> changes;
  for (std::size_t i = 0; i < reweighted.size(); ++i) {
    if (reweighted[i].weight != (*backends)[i].weight) {
      changes.push_back(absl::StrCat(reweighted[i].Key(), " ", (*backends)[i].weight, " → ",
                                     reweighted[i].weight));
    }
  }
  context.metrics.SetWeights(policy, absl::StrCat("HTTPRoute/", target.name), *outcome.plan);
  if (changes.empty()) {
    outcome.result = "unchanged";
    return outcome;
  }
  const std::string change = absl::StrCat(what, ": ", absl::StrJoin(changes, ", "));
  // The first write keeps the weights as they were, for the finalizer to put back.
  KeepWeights keep;
  if (kept.original.empty()) {
    keep = {.original = &*backends,
            .routed_by = absl::StrCat(policy.namespace_name, "/", policy.name),
            .has_annotations = kept.has_annotations};
  }
  return context.writes.Write(std::move(outcome), what, policy, path, kube::kJsonPatch,
                              BackendWeightsPatch(reweighted, keep), change, now);
}

}  // namespace carbonroute::routing
