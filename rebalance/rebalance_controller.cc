#include "rebalance/rebalance_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/utc_time.h"
#include "kube/json_view.h"
#include "kube/kube_node.h"
#include "kube/pod_eviction.h"

namespace carbonroute::rebalance {
namespace {

constexpr char kNodesPath[] = "/api/v1/nodes";
constexpr char kPodsPath[] = "/api/v1/pods";
constexpr const char* kWorkloadPaths[][2] = {{"Deployment", "/apis/apps/v1/deployments"},
                                             {"StatefulSet", "/apis/apps/v1/statefulsets"},
                                             {"ReplicaSet", "/apis/apps/v1/replicasets"}};

kube::ControllerLoopOptions LoopOptions(const RebalanceControllerOptions& options) {
  kube::ControllerLoopOptions loop{.resync = options.resync,
                                   .watch_timeout = options.watch_timeout};
  if (options.watch) loop.watched.push_back({PoliciesPath(), "CarbonRebalancePolicyList"});
  return loop;
}

std::string Grams(double grams) { return absl::StrFormat("%.3f g", grams); }

std::string Where(const std::string& node, const std::string& location) {
  return absl::StrCat(node, " (", location, ")");
}

}  // namespace

RebalanceController::RebalanceController(const controller_runtime::Wiring& wiring,
                                         RebalanceControllerOptions options,
                                         model_sources::ModelLoader load_model,
                                         RebalanceMetrics& metrics, ledger::Ledger* ledger)
    : LoopController(LoopOptions(options), wiring),
      options_(std::move(options)),
      api_(wiring.api),
      load_model_(std::move(load_model)),
      metrics_(metrics),
      writers_(wiring, metrics_.common(), "rebalance", options_.dry_run),
      ledger_(ledger, metrics_, std::max(absl::Minutes(10), 3 * options_.resync)) {}

absl::StatusOr<kube::ListedVersions> RebalanceController::List(absl::Time /*now*/) {
  kube::ListedVersions versions;
  std::vector<RebalancePolicy> policies;
  if (absl::Status listed = writers_.ListCollection(
          {.path = PoliciesPath(), .list_kind = "CarbonRebalancePolicyList"},
          "CarbonRebalancePolicies",
          [&](const kube::JsonField& item) {
            absl::StatusOr<RebalancePolicy> policy = ReadRebalancePolicy(item);
            if (!policy.ok()) return policy.status();
            policies.push_back(*std::move(policy));
            return absl::OkStatus();
          },
          [&] { policies.clear(); }, versions);
      !listed.ok()) {
    return listed;
  }
  // Without a policy nothing else is needed.
  NodeSet nodes;
  std::vector<RebalancePod> pods;
  std::map<std::string, Workload> workloads;
  if (!policies.empty()) {
    auto fail = [&](const std::string& what, const absl::Status& status) {
      metrics_.common().Error("list");
      spdlog::warn(absl::StrCat("rebalance: listing ", what, ": ", status.message()));
      return status;
    };
    absl::StatusOr<kube::ListResult> nodes_listed = kube::ListAll(
        api_, {.path = kNodesPath, .list_kind = "NodeList"},
        [&](const kube::JsonField& item) {
          kube::KubeNode node;
          if (absl::Status read = kube::ReadNode(item, node); !read.ok()) return read;
          absl::StatusOr<extender::FitNode> fit = extender::ReadFitNode(item);
          if (fit.ok()) nodes.fit[node.name] = *std::move(fit);
          nodes.places[node.name] = std::move(node);
          return absl::OkStatus();
        },
        [&] { nodes = {}; });
    if (!nodes_listed.ok()) return fail("Nodes", nodes_listed.status());
    absl::StatusOr<kube::ListResult> pods_listed = kube::ListAll(
        api_, {.path = kPodsPath, .list_kind = "PodList"},
        [&](const kube::JsonField& item) {
          absl::StatusOr<RebalancePod> pod = ReadRebalancePod(item);
          if (!pod.ok()) return pod.status();
          pods.push_back(*std::move(pod));
          return absl::OkStatus();
        },
        [&] { pods.clear(); });
    if (!pods_listed.ok()) return fail("Pods", pods_listed.status());
    for (const auto& [kind, path] : kWorkloadPaths) {
      const std::string kind_name = kind;
      absl::StatusOr<kube::ListResult> workloads_listed = kube::ListAll(
          api_, {.path = path, .list_kind = absl::StrCat(kind, "List")},
          [&](const kube::JsonField& item) {
            absl::StatusOr<Workload> workload = ReadWorkload(item, kind_name);
            if (!workload.ok()) return workload.status();
            const std::string uid = workload->uid;
            workloads[uid] = *std::move(workload);
            return absl::OkStatus();
          },
          [&] {
            std::erase_if(workloads, [&](const auto& w) { return w.second.kind == kind_name; });
          });
      if (!workloads_listed.ok()) return fail(absl::StrCat(kind, "s"), workloads_listed.status());
    }
    for (const RebalancePod& pod : pods) {
      if (pod.watched.node.empty() || pod.watched.finished) continue;
      const kube::PodRequests requests = pod.watched.requests.value_or(kube::PodRequests{});
      kube::PodRequests& used = nodes.used[pod.watched.node];
      used.cpu_cores += requests.cpu_cores;
      used.memory_bytes += requests.memory_bytes;
      used.gpus += requests.gpus;
    }
  }
  policies_ = std::move(policies);
  nodes_ = std::move(nodes);
  pods_ = std::move(pods);
  workloads_ = std::move(workloads);
  return versions;
}

void RebalanceController::Say(const Workload& owner, kube::EventType type,
                              const std::string& reason, const std::string& message,
                              absl::Time now) {
  spdlog::info(absl::StrCat("rebalance: ", owner.Describe(), ": ", reason, ": ", message));
  writers_.events.Say(owner.Reference(), owner.Describe(), type, reason, message, now);
}

void RebalanceController::LinkReplacements(const placement::PlacementModel& model, absl::Time now) {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    InFlight& flight = it->second;
    const RebalancePod* replacement = nullptr;
    for (const RebalancePod& pod : pods_) {
      if (flight.owner_pods.contains(pod.watched.uid) || pod.watched.node.empty()) continue;
      const Workload* owner = OwnerOf(pod, workloads_);
      if (owner == nullptr || owner->uid != it->first) continue;
      if (replacement == nullptr || pod.created < replacement->created) replacement = &pod;
    }
    if (replacement == nullptr) {
      if (now - flight.evicted_at > options_.in_flight_timeout) {
        spdlog::warn(absl::StrCat("rebalance: ", flight.owner.Describe(), ": no replacement of ",
                                  flight.pod_name, " was bound within ",
                                  absl::FormatDuration(options_.in_flight_timeout),
                                  " of its eviction: its move is not booked"));
        it = in_flight_.erase(it);
      } else {
        ++it;
      }
      continue;
    }
    const std::string& node = replacement->watched.node;
    const auto place = nodes_.places.find(node);
    const std::string location = place == nodes_.places.end() ? "" : place->second.location;
    const double restart_grams = ledger_.Start(replacement->watched.uid,
                                               {.namespace_name = flight.namespace_name,
                                                .policy = flight.policy_name,
                                                .chosen_location = location,
                                                .counterfactual_location = flight.from_location,
                                                .watts = flight.watts},
                                               flight.restart_joules, flight.declared, model, now);
    Say(flight.owner, kube::EventType::kNormal, "CarbonRebalanceReplaced",
        absl::StrCat(replacement->watched.name, " was bound to ", Where(node, location),
                     " in place of ", flight.pod_name, " on ",
                     Where(flight.from_node, flight.from_location),
                     " (its restart: ", Grams(restart_grams), ")"),
        now);
    it = in_flight_.erase(it);
  }
}

std::vector<RebalanceController::Weighed> RebalanceController::Weigh(
    const RebalancePolicy& policy, const placement::PlacementModel& model, absl::Time now,
    PolicyReport& report) {
  std::vector<Weighed> weighed;
  std::set<std::string> gaps_seen;
  int priced = 0, unpriced = 0;
  for (const RebalancePod& pod : pods_) {
    const extender::WatchedPod& watched = pod.watched;
    if (watched.namespace_name != policy.namespace_name || watched.node.empty() ||
        watched.finished || pod.deleting || pod.mirror) {
      continue;
    }
    const Workload* owner = OwnerOf(pod, workloads_);
    if (owner == nullptr || !policy.Selects(owner->kind, owner->labels)) continue;
    if (pod.local_storage && !policy.allow_local_storage) continue;
    PodPlan plan = PlanPod(watched, nodes_, model, now);
    if (!plan.here) {
      ++unpriced;
      if (report.data_missing_message.empty()) {
        report.data_missing_message = absl::StrCat(watched.name, ": ", plan.why_none);
      }
      continue;
    }
    ++priced;
    if (!plan.best) continue;
    const double gap = plan.here->grid.grams_per_kwh - plan.best->grid.grams_per_kwh;
    if (gap <= policy.carbon_tolerance) continue;
    const std::string key =
        absl::StrCat(policy.uid, "/", plan.here->location, ">", plan.best->location);
    gaps_seen.insert(key);
    const absl::Time since = cleaner_since_.emplace(key, now).first->second;
    Weighed entry{.pod = &pod, .owner = owner};
    entry.watts = options_.power_model.Watts(watched.requests.value_or(kube::PodRequests{}));
    entry.restart_joules =
        policy.joules_per_start.value_or(entry.watts * absl::ToDoubleSeconds(policy.startup_time));
    entry.price = placement::PriceMove(plan.here->grid, plan.best->grid,
                                       {.watts = entry.watts,
                                        .restart_joules = entry.restart_joules,
                                        .horizon = policy.horizon,
                                        .tolerance = policy.carbon_tolerance});
    entry.status = {.pod = watched.name,
                    .node = watched.node,
                    .location = plan.here->location,
                    .to_node = plan.best->node,
                    .to_location = plan.best->location,
                    .gap = gap,
                    .saving_grams = entry.price.saving_grams,
                    .cost_grams = entry.price.cost_grams,
                    .cleaner_since = since};
    entry.plan = std::move(plan);
    const absl::Time on_node_since =
        std::max(watched.scheduled_at.value_or(pod.created), pod.created);
    const absl::Time ready_at = std::max(since, on_node_since) + policy.min_stay;
    if (now < ready_at) {
      entry.status.verdict = "waiting";
      entry.status.reason = absl::StrCat("minStay: it may move from ", UtcSeconds(ready_at));
    } else if (const std::string why = entry.price.WhyNot(policy.carbon_tolerance); !why.empty()) {
      entry.status.verdict = "not_worth_it";
      entry.status.reason = why;
    } else if (!options_.extender_profiles.contains(owner->scheduler_name)) {
      entry.status.verdict = "not_placed_by_carbonroute";
      entry.status.reason =
          absl::StrCat("its template's schedulerName ", owner->scheduler_name,
                       " is not a profile that calls carbonroute's extender (--scheduler-name): "
                       "a replacement would land anywhere");
      if (announced_.insert(absl::StrCat("profile/", owner->uid)).second) {
        Say(*owner, kube::EventType::kWarning, "CarbonRebalanceNotPlacedByCarbonroute",
            absl::StrCat(watched.name, " would move to ",
                         Where(entry.status.to_node, entry.status.to_location), " but ",
                         entry.status.reason),
            now);
      }
    } else {
      entry.status.verdict = "move";
      entry.status.reason = absl::StrFormat(
          "%.1f gCO2eq/kWh cleaner (%s): %s expected over %s against a restart of %s", gap,
          entry.price.gap_basis, Grams(entry.price.saving_grams),
          absl::FormatDuration(policy.horizon), Grams(entry.price.cost_grams));
    }
    weighed.push_back(std::move(entry));
  }
  const std::string prefix = absl::StrCat(policy.uid, "/");
  std::erase_if(cleaner_since_, [&](const auto& entry) {
    return entry.first.rfind(prefix, 0) == 0 && !gaps_seen.contains(entry.first);
  });
  report.data_missing = unpriced > 0 && priced == 0;
  return weighed;
}

void RebalanceController::Move(const RebalancePolicy& policy, Weighed& weighed,
                               const placement::PlacementModel& model, absl::Time now) {
  const RebalancePod& pod = *weighed.pod;
  const Workload& owner = *weighed.owner;
  CandidateStatus& status = weighed.status;
  std::deque<absl::Time>& recent = recent_[policy.uid];
  while (!recent.empty() && recent.front() <= now - policy.period) recent.pop_front();
  if (in_flight_.contains(owner.uid)) {
    status.verdict = "in_flight";
    status.reason = "another Pod of its workload waits for its replacement to be bound";
    return;
  }
  if (throttled_this_pass_) {
    status.verdict = "throttled";
    status.reason = "the API server throttled an eviction this pass (API Priority and Fairness)";
    return;
  }
  if (refused_this_pass_.contains(owner.uid)) {
    status.verdict = "blocked_by_pdb";
    status.reason = "its disruption budget refused another of its Pods this pass";
    return;
  }
  if (static_cast<int64_t>(recent.size()) >= policy.max_moves_per_period) {
    status.verdict = "period_limit";
    status.reason = absl::StrCat("maxMovesPerPeriod: ", policy.max_moves_per_period, " per ",
                                 absl::FormatDuration(policy.period), " already made");
    return;
  }
  const std::string from = Where(pod.watched.node, status.location);
  const std::string to = Where(status.to_node, status.to_location);
  const std::string why =
      absl::StrCat(pod.watched.name, " on ", from, " → ", to, ": ", status.reason);
  if (options_.dry_run) {
    status.verdict = "would_evict";
    if (!ledger_.Staying(pod.watched.uid)) {
      recent.push_back(now);
      metrics_.Eviction(policy, kWouldEvict);
      Say(owner, kube::EventType::kNormal, "CarbonRebalanceWouldEvict", why, now);
      ledger_.Start(pod.watched.uid,
                    {.namespace_name = policy.namespace_name,
                     .policy = policy.name,
                     .chosen_location = status.to_location,
                     .counterfactual_location = status.location,
                     .watts = weighed.watts,
                     .mode = ledger::LedgerMode::kShadow},
                    weighed.restart_joules, policy.joules_per_start.has_value(), model, now);
    }
    return;
  }
  const kube::EvictionAnswer answer =
      kube::Evict(api_, pod.watched.namespace_name, pod.watched.name);
  switch (answer.outcome) {
    case kube::EvictionOutcome::kEvicted: {
      status.verdict = "evicted";
      recent.push_back(now);
      metrics_.Eviction(policy, kEvicted);
      InFlight flight{.policy_uid = policy.uid,
                      .policy_name = policy.name,
                      .namespace_name = policy.namespace_name,
                      .pod_uid = pod.watched.uid,
                      .pod_name = pod.watched.name,
                      .from_node = pod.watched.node,
                      .from_location = status.location,
                      .to_location = status.to_location,
                      .owner = owner,
                      .watts = weighed.watts,
                      .restart_joules = weighed.restart_joules,
                      .declared = policy.joules_per_start.has_value(),
                      .evicted_at = now};
      for (const RebalancePod& other : pods_) {
        const Workload* other_owner = OwnerOf(other, workloads_);
        if (other_owner != nullptr && other_owner->uid == owner.uid) {
          flight.owner_pods.insert(other.watched.uid);
        }
      }
      in_flight_[owner.uid] = std::move(flight);
      ledger_.End(pod.watched.uid);
      PolicyReport& totals = totals_[policy.uid];
      ++totals.moves;
      totals.last_move = LastMove{.pod = pod.watched.name, .from = from, .to = to, .at = now};
      Say(owner, kube::EventType::kNormal, "CarbonRebalanceEvicted", why, now);
      break;
    }
    case kube::EvictionOutcome::kBlockedByPdb:
      refused_this_pass_.insert(owner.uid);
      status.verdict = "blocked_by_pdb";
      status.reason = answer.message;
      metrics_.Eviction(policy, kBlockedByPdb);
      ++totals_[policy.uid].blocked_moves;
      if (announced_.insert(absl::StrCat("pdb/", pod.watched.uid)).second) {
        Say(owner, kube::EventType::kWarning, "CarbonRebalanceBlockedByPDB",
            absl::StrCat(pod.watched.name, " on ", from, " → ", to, ": ", answer.message,
                         " (tried again at the next resync)"),
            now);
      }
      break;
    case kube::EvictionOutcome::kThrottled:
      throttled_this_pass_ = true;
      status.verdict = "throttled";
      status.reason = answer.message;
      metrics_.Eviction(policy, kThrottled);
      break;
    case kube::EvictionOutcome::kGone:
      status.verdict = "gone";
      status.reason = "the Pod went before its eviction";
      break;
    case kube::EvictionOutcome::kFailed:
      status.verdict = "failed";
      status.reason = answer.message;
      metrics_.Eviction(policy, kFailed);
      metrics_.common().Error("evict");
      spdlog::warn(absl::StrCat("rebalance: evicting ", pod.watched.namespace_name, "/",
                                pod.watched.name, ": ", answer.message));
      break;
  }
}

PolicyReport RebalanceController::ReconcilePolicy(const RebalancePolicy& policy,
                                                  const placement::PlacementModel& model,
                                                  absl::Time now) {
  PolicyReport report;
  if (!policy.invalid.empty()) {
    metrics_.SetCandidates(policy, 0);
    spdlog::warn(absl::StrCat("rebalance: ", policy.Describe(), ": ", policy.invalid));
    return report;
  }
  std::vector<Weighed> weighed = Weigh(policy, model, now, report);
  int candidates = 0;
  std::vector<Weighed*> movable;
  for (Weighed& entry : weighed) {
    if (entry.status.verdict == "move") {
      ++candidates;
      movable.push_back(&entry);
    }
  }
  std::stable_sort(movable.begin(), movable.end(), [](const Weighed* a, const Weighed* b) {
    return a->price.saving_grams - a->price.cost_grams >
           b->price.saving_grams - b->price.cost_grams;
  });
  refused_this_pass_.clear();
  throttled_this_pass_ = false;
  for (Weighed* entry : movable) Move(policy, *entry, model, now);
  metrics_.SetCandidates(policy, candidates);
  for (Weighed& entry : weighed) report.candidates.push_back(std::move(entry.status));
  const PolicyReport& totals = totals_[policy.uid];
  report.moves = totals.moves;
  report.blocked_moves = totals.blocked_moves;
  report.last_move = totals.last_move;
  for (const auto& [owner, flight] : in_flight_) {
    report.moving = report.moving || flight.policy_uid == policy.uid;
  }
  return report;
}

void RebalanceController::Reconcile(const kube::ControllerPass& pass) {
  metrics_.common().SetLeader(pass.leading);
  if (!pass.lease_error.empty()) metrics_.common().Error("lease");
  if (!pass.leading || !pass.listed) return;
  const absl::Time now = pass.now;
  model_sources::LoadedModel loaded = load_model_(now);
  for (const absl::Status& error : loaded.errors) {
    metrics_.common().Error("model");
    spdlog::warn(absl::StrCat("rebalance: model source: ", error.message()));
  }
  if (loaded.model == nullptr) {
    loaded.model = std::make_shared<const placement::PlacementModel>(placement::PlacementFacts{});
  }
  const placement::PlacementModel& model = *loaded.model;
  LinkReplacements(model, now);
  std::set<std::string> running;
  for (const RebalancePod& pod : pods_) {
    if (!pod.watched.node.empty() && !pod.watched.finished) running.insert(pod.watched.uid);
  }
  ledger_.Accrue(running, model, now);
  std::map<std::string, RebalancePolicy> known;
  for (const RebalancePolicy& policy : policies_) {
    known[policy.uid] = policy;
    metrics_.Touched(policy, now);
    const PolicyReport report = ReconcilePolicy(policy, model, now);
    writers_.status.Write(
        policy.uid, PolicyPath(policy), policy.Describe(),
        PolicyStatusBody(policy, report, [&](const std::string& type, const std::string& status) {
          return writers_.status.TransitionTime(policy.uid, type, status, now);
        }));
  }
  for (const auto& [uid, policy] : known_) {  // deleted since the last pass
    if (known.contains(uid)) continue;
    metrics_.Forget(policy);
    writers_.status.Forget(uid);
    totals_.erase(uid);
    recent_.erase(uid);
    const std::string prefix = absl::StrCat(uid, "/");
    std::erase_if(cleaner_since_,
                  [&prefix](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
  }
  known_ = std::move(known);
}

}  // namespace carbonroute::rebalance
