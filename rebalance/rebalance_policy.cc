#include "rebalance/rebalance_policy.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/duration_text.h"
#include "base/status_macros.h"

namespace carbonroute::rebalance {
namespace {

std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

void Note(std::string& invalid, const std::string& problem) {
  if (invalid.empty()) invalid = problem;
}

// A duration member (> 0), kept in `out` when present and valid.
void DurationAt(const kube::JsonField& field, absl::Duration& out, std::string& invalid) {
  const std::string text = kube::StringOrNote(field, invalid);
  if (text.empty()) return;
  std::optional<absl::Duration> duration = ParseDurationText(text);
  if (!duration || *duration <= absl::ZeroDuration()) {
    Note(invalid, absl::StrCat(field.path(), ": expected a duration > 0 such as 30s, 10m or 4h (",
                               kDurationUnits, "), got ", Quoted(text)));
    return;
  }
  out = *duration;
}

void ReadKinds(const kube::JsonField& list, RebalancePolicy& policy) {
  if (list.missing()) return;
  std::set<std::string> kinds;
  const absl::Status shape = list.ForEachElement([&](const kube::JsonField& item) {
    const std::string kind = kube::StringOrNote(item, policy.invalid);
    bool known = false;
    for (const char* workload : kWorkloadKinds) known = known || kind == workload;
    if (!known) {
      Note(policy.invalid,
           absl::StrCat(item.path(), ": expected Deployment, StatefulSet or ReplicaSet, got ",
                        Quoted(kind), kind == "DaemonSet" ? " (a DaemonSet's Pods never move)" : "",
                        kind == "Job" ? " (a Job's Pods run to completion: see hold)" : ""));
    }
    kinds.insert(kind);
    return absl::OkStatus();
  });
  if (!shape.ok()) Note(policy.invalid, absl::StrCat(list.path(), ": expected a list of kinds"));
  if (!kinds.empty()) policy.workload_kinds = std::move(kinds);
}

}  // namespace

std::string RebalancePolicy::Describe() const {
  return absl::StrCat(kPolicyKind, " ", namespace_name, "/", name);
}

bool RebalancePolicy::Selects(const std::string& kind,
                              const std::map<std::string, std::string>& labels) const {
  if (!workload_kinds.contains(kind)) return false;
  for (const auto& [key, value] : match_labels) {
    const auto found = labels.find(key);
    if (found == labels.end() || found->second != value) return false;
  }
  return true;
}

absl::StatusOr<RebalancePolicy> ReadRebalancePolicy(const kube::JsonField& object) {
  CARBONROUTE_RETURN_IF_ERROR(object.RequireObject());
  const kube::JsonField metadata = object["metadata"];
  RebalancePolicy policy;
  CARBONROUTE_ASSIGN_OR_RETURN(policy.name, metadata["name"].RequiredString());
  std::string& invalid = policy.invalid;
  policy.namespace_name = kube::StringOrNote(metadata["namespace"], invalid);
  if (policy.namespace_name.empty()) policy.namespace_name = "default";
  policy.uid = kube::StringOrNote(metadata["uid"], invalid);
  if (absl::StatusOr<std::optional<int64_t>> generation = metadata["generation"].OptionalInt();
      generation.ok()) {
    policy.generation = generation->value_or(0);
  }
  const kube::JsonField spec = object["spec"];
  if (!spec.is_object()) {
    invalid = "spec: required";
    return policy;
  }
  const kube::JsonField selector = spec["selector"];
  if (!selector.missing()) {
    if (absl::Status labels = selector["matchLabels"].ReadStringMap(policy.match_labels);
        !labels.ok()) {
      Note(invalid, std::string(labels.message()));
    }
    if (!selector["matchExpressions"].missing()) {
      Note(invalid, absl::StrCat(selector.path(),
                                 ".matchExpressions: not supported; select by matchLabels"));
    }
  }
  ReadKinds(spec["workloadKinds"], policy);
  policy.carbon_tolerance =
      kube::NumberOrNote(spec["carbonToleranceGramsPerKwh"], /*positive=*/false, invalid)
          .value_or(policy.carbon_tolerance);
  DurationAt(spec["minStay"], policy.min_stay, invalid);
  DurationAt(spec["horizon"], policy.horizon, invalid);
  DurationAt(spec["period"], policy.period, invalid);
  DurationAt(spec["startupTime"], policy.startup_time, invalid);
  if (std::optional<double> moves =
          kube::NumberOrNote(spec["maxMovesPerPeriod"], /*positive=*/true, invalid)) {
    if (*moves != std::floor(*moves)) {
      Note(invalid,
           absl::StrCat("spec.maxMovesPerPeriod: expected a whole number ≥ 1, got ", *moves));
    } else {
      policy.max_moves_per_period = static_cast<int64_t>(*moves);
    }
  }
  policy.joules_per_start = kube::NumberOrNote(spec["joulesPerStart"], /*positive=*/true, invalid);
  if (absl::StatusOr<bool> local = spec["allowLocalStorage"].OptionalBool(); local.ok()) {
    policy.allow_local_storage = *local;
  } else {
    Note(invalid, "spec.allowLocalStorage: expected true or false");
  }
  return policy;
}

std::string PoliciesPath() {
  return absl::StrCat("/apis/", kPolicyGroupVersion, "/", kPolicyPlural);
}

std::string PolicyPath(const RebalancePolicy& policy) {
  return absl::StrCat("/apis/", kPolicyGroupVersion, "/namespaces/", policy.namespace_name, "/",
                      kPolicyPlural, "/", policy.name);
}

}  // namespace carbonroute::rebalance
