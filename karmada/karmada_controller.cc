#include "karmada/karmada_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "kube/pod_requests.h"
#include "placement/scoring.h"

namespace carbonroute::karmada {

using placement::Candidate;
using placement::ScoredCandidate;

struct KarmadaController::Listed {
  std::vector<CarbonPolicy> policies;
  std::map<std::string, TargetPolicy> targets;  // ObjectPath → what it places now
  std::vector<Candidate> karmada_clusters;      // with a location or a region
  std::vector<std::string> unlocated;           // Cluster objects with neither
  std::map<std::string, std::string> versions;  // collection path → list resourceVersion
};

namespace {

kube::ControllerLoopOptions LoopOptions(const KarmadaControllerOptions& options) {
  kube::ControllerLoopOptions loop{.resync = options.resync,
                                   .watch_timeout = options.watch_timeout};
  if (options.watch) {
    loop.watched = {
        {CollectionPath(PolicyKind::kCarbonAwareKarmadaPolicy), "CarbonAwareKarmadaPolicyList"},
        {CollectionPath(PolicyKind::kCarbonPlacementPolicy), "CarbonPlacementPolicyList"},
        {CollectionPath(TargetKind::kPropagationPolicy), "PropagationPolicyList"},
        {CollectionPath(TargetKind::kClusterPropagationPolicy), "ClusterPropagationPolicyList"}};
  }
  return loop;
}

Condition Ready(bool ready, std::string reason, std::string message) {
  return {"Ready", ready, std::move(reason), std::move(message)};
}

// The API path of a resource template the ledger reads; "" for a kind it does not.
std::string WorkloadPath(const ResourceSelector& selector, const std::string& ns) {
  if (selector.name.empty() || ns.empty()) return "";
  static const std::map<std::string, std::string> kPlural = {{"Deployment", "deployments"},
                                                             {"StatefulSet", "statefulsets"},
                                                             {"ReplicaSet", "replicasets"},
                                                             {"Job", "jobs"},
                                                             {"Pod", "pods"}};
  const auto plural = kPlural.find(selector.kind);
  if (plural == kPlural.end()) return "";
  const std::string group =
      selector.api_version == "v1" ? "/api/v1" : "/apis/" + selector.api_version;
  return absl::StrCat(group, "/namespaces/", ns, "/", plural->second, "/", selector.name);
}

}  // namespace

KarmadaController::KarmadaController(KarmadaControllerOptions options,
                                     const controller_runtime::Wiring& wiring,
                                     ModelLoader load_model, KarmadaMetrics& metrics,
                                     ledger::Ledger* ledger)
    : LoopController(LoopOptions(options), wiring),
      options_(options),
      api_(wiring.api),
      load_model_(std::move(load_model)),
      metrics_(metrics),
      writers_(wiring, metrics_.common(), "karmada", options_.dry_run) {
  if (ledger != nullptr) {
    // Longer than three resyncs, the controller cannot vouch for what ran.
    placement_ledger_ = std::make_unique<PlacementLedger>(
        *ledger, options_.dry_run ? ledger::LedgerMode::kShadow : ledger::LedgerMode::kEnforced,
        3 * options_.resync);
  }
}

KarmadaController::~KarmadaController() = default;

absl::StatusOr<kube::ListedVersions> KarmadaController::List(absl::Time /*now*/) {
  auto listed = std::make_unique<Listed>();
  if (!ListInto(*listed)) return absl::UnavailableError("a list failed");  // logged
  kube::ListedVersions versions = listed->versions;
  listed_ = std::move(listed);
  return versions;
}

bool KarmadaController::ListInto(Listed& listed) {
  auto list = [&](const std::string& path, const std::string& kind,
                  const std::function<absl::Status(const kube::JsonField&)>& on_item,
                  const std::function<void()>& on_restart) {
    return writers_
        .ListCollection({.path = path, .list_kind = kind}, kind, on_item, on_restart,
                        listed.versions)
        .ok();
  };
  for (PolicyKind kind :
       {PolicyKind::kCarbonAwareKarmadaPolicy, PolicyKind::kCarbonPlacementPolicy}) {
    const std::size_t first = listed.policies.size();
    const bool ok = list(
        CollectionPath(kind), absl::StrCat(NamesOf(kind).kind, "List"),
        [&](const kube::JsonField& item) {
          absl::StatusOr<CarbonPolicy> policy = ReadCarbonPolicy(kind, item);
          if (!policy.ok()) return policy.status();
          listed.policies.push_back(*std::move(policy));
          return absl::OkStatus();
        },
        [&] { listed.policies.resize(first); });
    if (!ok) return false;
  }
  for (TargetKind kind : {TargetKind::kPropagationPolicy, TargetKind::kClusterPropagationPolicy}) {
    const bool ok = list(
        CollectionPath(kind), absl::StrCat(NamesOf(kind).kind, "List"),
        [&](const kube::JsonField& item) {
          absl::StatusOr<std::string> name = item["metadata"]["name"].RequiredString();
          absl::StatusOr<std::string> ns = item["metadata"]["namespace"].OptionalString();
          if (!name.ok()) return name.status();
          if (!ns.ok()) return ns.status();
          absl::StatusOr<TargetPolicy> target = ReadTargetPolicy(item);
          if (!target.ok()) return target.status();
          listed.targets[ObjectPath(kind, *ns, *name)] = *std::move(target);
          return absl::OkStatus();
        },
        [] {});
    if (!ok) return false;
  }
  if (std::any_of(listed.policies.begin(), listed.policies.end(),
                  [](const CarbonPolicy& p) { return p.clusters_from_karmada; })) {
    const bool clusters_listed = list(
        kClustersPath, "ClusterList",
        [&](const kube::JsonField& item) {
          absl::StatusOr<std::string> name = item["metadata"]["name"].RequiredString();
          if (!name.ok()) return name.status();
          std::map<std::string, std::string> labels;
          if (absl::Status read = item["metadata"]["labels"].ReadStringMap(labels); !read.ok()) {
            return read;
          }
          absl::StatusOr<std::string> region = item["spec"]["region"].OptionalString();
          if (!region.ok()) return region.status();
          const std::string location = labels[kube::kLocationLabel];
          if (location.empty() && region->empty()) {
            listed.unlocated.push_back(*name);
          } else {
            listed.karmada_clusters.push_back({*name, location, *region});
          }
          return absl::OkStatus();
        },
        [&] {
          listed.karmada_clusters.clear();
          listed.unlocated.clear();
        });
    if (!clusters_listed) return false;
  }
  return true;
}

void KarmadaController::Event(const CarbonPolicy& policy, kube::EventType type,
                              const std::string& reason, const std::string& message,
                              absl::Time now) {
  const KindNames& names = NamesOf(policy.kind);
  writers_.events.Say(
      {names.group_version, names.kind, policy.namespace_name, policy.name, policy.uid},
      policy.Describe(), type, reason, message, now);
}

void KarmadaController::Finish(const CarbonPolicy& policy, const PlacementChoice* choice,
                               const std::vector<Condition>& conditions, const std::string& result,
                               absl::Time now) {
  metrics_.Reconciled(policy, result, now);
  const std::string patch = StatusPatch(policy, choice, conditions, now);
  writers_.status.Write(policy.uid, ObjectPath(policy.kind, policy.namespace_name, policy.name),
                        policy.Describe(), patch);
  // A problem (Ready False) is an Event once, when it starts or changes.
  std::string problem;
  for (const Condition& condition : conditions) {
    if (condition.type == "Ready" && !condition.status) {
      problem = absl::StrCat(condition.reason, ": ", condition.message);
      if (problem_said_[policy.uid] != problem) {
        Event(policy, kube::EventType::kWarning, condition.reason, condition.message, now);
        spdlog::warn(absl::StrCat("karmada: ", policy.Describe(), ": ", problem));
      }
    }
  }
  problem_said_[policy.uid] = problem;
}

void KarmadaController::ReconcilePolicy(const CarbonPolicy& policy, const Listed& listed,
                                        const placement::PlacementModel& model, absl::Time now) {
  if (!policy.invalid.empty()) {
    Finish(policy, nullptr, {Ready(false, "InvalidSpec", policy.invalid)}, "invalid", now);
    return;
  }
  const std::string target_path =
      ObjectPath(policy.target_kind, policy.target_namespace, policy.target_name);
  const auto target = listed.targets.find(target_path);
  const std::string target_name =
      policy.target_kind == TargetKind::kClusterPropagationPolicy
          ? absl::StrCat(NamesOf(policy.target_kind).kind, " ", policy.target_name)
          : absl::StrCat(NamesOf(policy.target_kind).kind, " ", policy.target_namespace, "/",
                         policy.target_name);
  if (target == listed.targets.end()) {
    const std::string message = absl::StrCat(target_name, " does not exist");
    Finish(policy, nullptr,
           {Ready(false, "TargetNotFound", message), {"TargetNotFound", true, "NotFound", message}},
           "target_not_found", now);
    return;
  }
  const Condition found = {"TargetNotFound", false, "Found", absl::StrCat(target_name, " exists")};
  if (target->second.uses_cluster_affinities) {
    Finish(policy, nullptr,
           {Ready(false, "ClusterAffinitiesUnsupported",
                  absl::StrCat(target_name,
                               " uses spec.placement.clusterAffinities (ordered failover "
                               "groups); carbonroute writes clusterAffinity.clusterNames, which "
                               "Karmada refuses beside it: use clusterAffinity")),
            found},
           "invalid", now);
    return;
  }

  const std::vector<Candidate>& candidates =
      policy.clusters_from_karmada ? listed.karmada_clusters : policy.clusters;
  placement::Workload workload;
  workload.expected_runtime = options_.expected_runtime;
  if (policy.max_rtt) {
    std::string origin = policy.origin;  // a cluster of the policy stands for its region
    for (const Candidate& cluster : candidates) {
      if (cluster.name == origin && !cluster.region.empty()) origin = cluster.region;
    }
    workload.max_rtt[origin] = *policy.max_rtt;
  }
  placement::ScoringOptions scoring;
  scoring.now = now;
  const std::vector<ScoredCandidate> scored =
      placement::ScoreCandidates(model, candidates, workload, scoring);
  ChoiceInput input{.policy = &policy,
                    .scored = &scored,
                    .current = target->second.cluster_names,
                    .divided = target->second.divided,
                    .now = now};
  for (const ScoredCandidate& s : scored) {
    const uint32_t id = model.LocationId(s.location);
    const placement::LocationCarbon* carbon =
        id == placement::PlacementModel::kNone ? nullptr : model.Carbon(id);
    if (carbon == nullptr) continue;
    std::optional<absl::Time> fetched;
    if (carbon->age) fetched = carbon->observed_at - *carbon->age;
    input.readings[s.name] = {carbon->valid_to, fetched};
  }
  PlacementChoice choice = ChoosePlacement(input);
  const bool weights_changed =
      !choice.weights.empty() &&
      (!target->second.weighted || choice.weights != target->second.static_weights);
  const bool write = (choice.changed || weights_changed) && !choice.active.empty();
  if (write && options_.dry_run) {
    // Said once per placement it would write, not on every pass.
    const std::string would =
        absl::StrCat("would place ", target_name, " on ", absl::StrJoin(choice.active, ", "), ": ",
                     choice.message);
    if (would_said_[policy.uid] != would) {
      Event(policy, kube::EventType::kNormal, "CarbonPlacementWouldMove", would, now);
      spdlog::info(absl::StrCat("karmada (dry run): ", policy.Describe(), ": ", would));
      would_said_[policy.uid] = would;
    }
  } else if (write) {
    const absl::StatusOr<std::string> patched = api_.Patch(
        target_path, kube::kMergePatch, ClusterNamesPatch(choice.active, choice.weights));
    if (!patched.ok()) {
      metrics_.common().Error("patch");
      Finish(policy, &choice,
             {Ready(false, "TargetWriteFailed",
                    absl::StrCat("patching ", target_name, ": ", patched.status().message())),
              found},
             "error", now);
      return;
    }
    if (choice.changed) {
      Event(policy, kube::EventType::kNormal, "CarbonPlacementMoved",
            absl::StrCat(target_name, ": ", choice.message), now);
      spdlog::info(
          absl::StrCat("karmada: ", policy.Describe(), ": ", target_name, " ", choice.message));
    }
  }
  metrics_.SetClusters(policy, choice, write && choice.changed && !options_.dry_run);
  Book(policy, target->second, choice, candidates, scored, model, write && choice.changed, now);
  std::vector<std::string> missing = choice.missing_data;
  if (policy.clusters_from_karmada) {
    for (const std::string& name : listed.unlocated) {
      missing.push_back(
          absl::StrCat(name, " (no ", kube::kLocationLabel, " label, no spec.region)"));
    }
  }
  const Condition data =
      missing.empty()
          ? Condition{"DataMissing", false, "AllReadings", "every cluster has a current reading"}
          : Condition{"DataMissing", true, "NoReading",
                      absl::StrCat("no current carbon reading for ", absl::StrJoin(missing, ", "))};
  const Condition ready = choice.kept_for_missing_data ? Ready(false, "DataMissing", choice.message)
                                                       : Ready(true, "Placed", choice.state);
  Finish(policy, &choice, {ready, data, found},
         choice.kept_for_missing_data ? "data_missing" : (write ? "placed" : "unchanged"), now);
}

std::optional<double> KarmadaController::WorkloadWatts(const CarbonPolicy& policy,
                                                       const TargetPolicy& target) {
  std::string problem;
  double watts = 0;
  kube::JsonDocument document;
  for (const ResourceSelector& selector : target.resource_selectors) {
    const std::string ns =
        selector.namespace_name.empty() ? policy.target_namespace : selector.namespace_name;
    const std::string path = WorkloadPath(selector, ns);
    if (path.empty()) {
      problem = absl::StrCat("resource selector ", selector.kind, " ", selector.name,
                             ": the ledger reads a named Deployment, StatefulSet, ReplicaSet, Job "
                             "or Pod");
      break;
    }
    absl::StatusOr<std::string> body = api_.Get(path);
    absl::StatusOr<kube::JsonField> object =
        body.ok() ? document.Parse(*body, path) : absl::StatusOr<kube::JsonField>(body.status());
    absl::StatusOr<kube::WorkloadRequests> workload =
        object.ok() ? kube::ReadWorkloadRequests(*object)
                    : absl::StatusOr<kube::WorkloadRequests>(object.status());
    if (!workload.ok()) {
      problem = absl::StrCat(path, ": ", workload.status().message());
      break;
    }
    watts +=
        options_.power_model.Watts(workload->per_replica) * static_cast<double>(workload->replicas);
  }
  if (problem.empty() && target.resource_selectors.empty()) problem = "no resourceSelectors";
  if (energy_problem_said_[policy.uid] != problem && !problem.empty()) {
    spdlog::warn(absl::StrCat("karmada: ", policy.Describe(),
                              ": the ledger cannot price its workload (intervals counted as "
                              "skipped, unknown_energy): ",
                              problem));
  }
  energy_problem_said_[policy.uid] = problem;
  if (!problem.empty()) return std::nullopt;
  return watts;
}

void KarmadaController::Book(const CarbonPolicy& policy, const TargetPolicy& target,
                             const PlacementChoice& choice,
                             const std::vector<Candidate>& candidates,
                             const std::vector<ScoredCandidate>& scored,
                             const placement::PlacementModel& model, bool moved, absl::Time now) {
  if (placement_ledger_ == nullptr) return;
  PlacementPass pass{.policy_uid = policy.uid, .moved = moved};
  pass.namespace_name =
      policy.target_namespace.empty() ? policy.namespace_name : policy.target_namespace;
  for (const ResourceSelector& selector : target.resource_selectors) {
    if (!selector.namespace_name.empty()) pass.namespace_name = selector.namespace_name;
  }
  const ClusterShares ran =
      SharesOf(target.cluster_names,
               target.weighted ? target.static_weights : std::map<std::string, int64_t>{});
  std::vector<std::string> listed;
  for (const Candidate& cluster : candidates) listed.push_back(cluster.name);
  if (options_.dry_run) {
    auto previous = would_place_.find(policy.uid);
    pass.chosen = previous != would_place_.end() ? previous->second : ran;
    pass.counterfactual = ran;
    would_place_[policy.uid] = SharesOf(choice.active, choice.weights);
  } else {
    pass.chosen = ran;
    pass.counterfactual = SharesOf(listed, {});
  }
  if (target.divided) {
    // The templates are read only when the pass prices an interval.
    if (placement_ledger_->WouldPrice(policy.uid, now)) pass.watts = WorkloadWatts(policy, target);
  } else {
    pass.not_booked = kDuplicated;
  }
  for (const ScoredCandidate& cluster : scored) {
    const uint32_t id = model.LocationId(cluster.location);
    const placement::LocationCarbon* carbon =
        id == placement::PlacementModel::kNone ? nullptr : model.Carbon(id);
    if (carbon == nullptr) continue;
    ClusterReading reading{.grams_per_kwh = carbon->grams_per_kwh,
                           .emissions_type = carbon->emissions_type};
    if (policy.max_rtt) reading.origin_rtt = cluster.latency;
    pass.readings[cluster.name] = reading;
  }
  placement_ledger_->Book(pass, now);
}

void KarmadaController::Reconcile(const kube::ControllerPass& pass) {
  if (!pass.lease_error.empty()) metrics_.common().Error("lease");
  metrics_.common().SetLeader(pass.leading);
  if (!pass.leading || !pass.listed) return;
  const absl::Time now = pass.now;
  const Listed& listed = *listed_;
  model_sources::LoadedModel loaded = load_model_(now);
  for (const absl::Status& error : loaded.errors) {
    metrics_.common().Error("model");
    spdlog::warn(absl::StrCat("karmada: model source: ", error.message()));
  }
  if (loaded.model == nullptr) {
    loaded.model = std::make_shared<const placement::PlacementModel>(placement::PlacementFacts{});
  }
  std::map<std::string, CarbonPolicy> known;
  for (const CarbonPolicy& policy : listed.policies) {
    ReconcilePolicy(policy, listed, *loaded.model, now);
    known[policy.uid] = policy;
  }
  for (const auto& [uid, policy] : known_) {  // deleted since the last pass: its gauges go
    if (known.contains(uid)) continue;
    metrics_.Forget(policy);
    writers_.status.Forget(uid);
    problem_said_.erase(uid);
    would_place_.erase(uid);
    would_said_.erase(uid);
    energy_problem_said_.erase(uid);
    if (placement_ledger_ != nullptr) placement_ledger_->Forget(uid);
  }
  known_ = std::move(known);
}

}  // namespace carbonroute::karmada
