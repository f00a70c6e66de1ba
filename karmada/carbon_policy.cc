#include "karmada/carbon_policy.h"

#include <cmath>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "contract/api_names.h"
#include "net/url.h"

namespace carbonroute::karmada {
namespace {

constexpr KindNames kSeedNames = {"carbonaware.rossf7.github.io/v1alpha1",
                                  "carbonawarekarmadapolicies", "CarbonAwareKarmadaPolicy"};
constexpr KindNames kOwnNames = {api_names::kGroupVersion, "carbonplacementpolicies",
                                 "CarbonPlacementPolicy"};
constexpr KindNames kPropagationNames = {"policy.karmada.io/v1alpha1", "propagationpolicies",
                                         "PropagationPolicy"};
constexpr KindNames kClusterPropagationNames = {
    "policy.karmada.io/v1alpha1", "clusterpropagationpolicies", "ClusterPropagationPolicy"};

std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

// A string member, or `invalid` set naming it.
std::string StringAt(const kube::JsonField& field, std::string& invalid) {
  return kube::StringOrNote(field, invalid);
}

std::optional<double> NumberAt(const kube::JsonField& field, std::string& invalid) {
  if (field.missing()) return std::nullopt;
  absl::StatusOr<std::optional<int64_t>> whole = field.OptionalInt();
  if (whole.ok() && whole->has_value()) return static_cast<double>(**whole);
  // Not an integer: a string such as "25" (as the extender's delay_ labels) is taken too.
  absl::StatusOr<std::string> text = field.OptionalString();
  double value = 0;
  if (text.ok() && absl::SimpleAtod(*text, &value)) return value;
  if (invalid.empty()) invalid = absl::StrCat(field.path(), ": expected a number");
  return std::nullopt;
}

void ReadPrevious(const kube::JsonField& status, PreviousStatus& previous) {
  (void)status["activeClusters"].ForEachElement([&](const kube::JsonField& name) {
    if (absl::StatusOr<std::string> text = name.OptionalString(); text.ok() && !text->empty()) {
      previous.active_clusters.push_back(*text);
    }
    return absl::OkStatus();
  });
  auto time_at = [](const kube::JsonField& field) -> std::optional<absl::Time> {
    absl::StatusOr<std::string> text = field.OptionalString();
    absl::Time t;
    std::string error;
    if (!text.ok() || text->empty() || !absl::ParseTime(absl::RFC3339_full, *text, &t, &error)) {
      return std::nullopt;
    }
    return t;
  };
  (void)status["clusters"].ForEachElement([&](const kube::JsonField& cluster) {
    absl::StatusOr<std::string> name = cluster["name"].OptionalString();
    if (name.ok() && !name->empty()) {
      if (std::optional<absl::Time> since = time_at(cluster["activeSince"])) {
        previous.active_since[*name] = *since;
      }
    }
    return absl::OkStatus();
  });
  (void)status["conditions"].ForEachElement([&](const kube::JsonField& condition) {
    absl::StatusOr<std::string> type = condition["type"].OptionalString();
    if (!type.ok() || type->empty()) return absl::OkStatus();
    if (std::optional<absl::Time> since = time_at(condition["lastTransitionTime"])) {
      previous.condition_since[*type] = *since;
    }
    if (absl::StatusOr<std::string> value = condition["status"].OptionalString(); value.ok()) {
      previous.condition_status[*type] = *value;
    }
    return absl::OkStatus();
  });
}

void ReadClusters(const kube::JsonField& list, CarbonPolicy& policy) {
  std::set<std::string> names;
  std::string& invalid = policy.invalid;
  const absl::Status shape = list.ForEachElement([&](const kube::JsonField& entry) {
    placement::Candidate cluster{StringAt(entry["name"], invalid),
                                 StringAt(entry["location"], invalid),
                                 StringAt(entry["region"], invalid)};
    if (!invalid.empty()) return absl::OkStatus();
    if (cluster.name.empty()) {
      invalid = absl::StrCat(entry.path(), ".name: required");
    } else if (cluster.location.empty() && cluster.region.empty()) {
      invalid =
          absl::StrCat(entry.path(), " (", cluster.name, "): give a location",
                       policy.kind == PolicyKind::kCarbonPlacementPolicy ? " or a region" : "");
    } else if (!names.insert(cluster.name).second) {
      invalid = absl::StrCat(entry.path(), ".name: duplicate cluster ", Quoted(cluster.name));
    }
    policy.clusters.push_back(std::move(cluster));
    return absl::OkStatus();
  });
  if (!shape.ok() && invalid.empty()) invalid = absl::StrCat(list.path(), ": expected a list");
}

void ReadSeedSpec(const kube::JsonField& spec, CarbonPolicy& policy) {
  std::string& invalid = policy.invalid;
  const std::string target = StringAt(spec["karmadaTarget"], invalid);
  if (target == "propagationpolicies.policy.karmada.io") {
    policy.target_kind = TargetKind::kPropagationPolicy;
  } else if (target == "clusterpropagationpolicies.policy.karmada.io") {
    policy.target_kind = TargetKind::kClusterPropagationPolicy;
  } else if (invalid.empty()) {
    invalid = absl::StrCat(
        "spec.karmadaTarget: expected propagationpolicies.policy.karmada.io or "
        "clusterpropagationpolicies.policy.karmada.io, got ",
        Quoted(target));
  }
  policy.target_name = StringAt(spec["karmadaTargetRef"]["name"], invalid);
  policy.target_namespace = StringAt(spec["karmadaTargetRef"]["namespace"], invalid);
  if (policy.target_name.empty() && invalid.empty()) {
    invalid = "spec.karmadaTargetRef.name: required";
  }
  ReadClusters(spec["clusterLocations"], policy);
  if (policy.clusters.empty() && invalid.empty()) {
    invalid = "spec.clusterLocations: list at least one member cluster";
  }
}

void ReadOwnSpec(const kube::JsonField& spec, CarbonPolicy& policy) {
  std::string& invalid = policy.invalid;
  const kube::JsonField ref = spec["targetRef"];
  const std::string kind = StringAt(ref["kind"], invalid);
  if (kind == "PropagationPolicy") {
    policy.target_kind = TargetKind::kPropagationPolicy;
  } else if (kind == "ClusterPropagationPolicy") {
    policy.target_kind = TargetKind::kClusterPropagationPolicy;
  } else if (invalid.empty()) {
    invalid = absl::StrCat(
        "spec.targetRef.kind: expected PropagationPolicy or ClusterPropagationPolicy, got ",
        Quoted(kind));
  }
  policy.target_name = StringAt(ref["name"], invalid);
  policy.target_namespace = StringAt(ref["namespace"], invalid);
  if (policy.target_name.empty() && invalid.empty()) invalid = "spec.targetRef.name: required";
  if (spec["clusters"].missing()) {
    policy.clusters_from_karmada = true;
  } else {
    ReadClusters(spec["clusters"], policy);
  }
  policy.origin = StringAt(spec["origin"], invalid);
  const std::optional<double> max_rtt_ms = NumberAt(spec["maxRttMs"], invalid);
  if (max_rtt_ms.has_value() != !policy.origin.empty() && invalid.empty()) {
    invalid =
        "spec.origin and spec.maxRttMs: give both (a latency limit from the origin) or "
        "neither";
  } else if (max_rtt_ms && !(*max_rtt_ms > 0 && std::isfinite(*max_rtt_ms)) && invalid.empty()) {
    invalid = absl::StrCat("spec.maxRttMs: expected a positive number of milliseconds, got ",
                           *max_rtt_ms);
  }
  if (max_rtt_ms && invalid.empty()) policy.max_rtt = absl::Milliseconds(*max_rtt_ms);
  policy.carbon_tolerance = NumberAt(spec["carbonToleranceGramsPerKwh"], invalid).value_or(0.0);
  if (policy.carbon_tolerance < 0 && invalid.empty()) {
    invalid = absl::StrCat("spec.carbonToleranceGramsPerKwh: expected ≥ 0 gCO2eq/kWh, got ",
                           policy.carbon_tolerance);
  }
  if (const std::string stay = StringAt(spec["minStay"], invalid); !stay.empty()) {
    if (!absl::ParseDuration(stay, &policy.min_stay) || policy.min_stay < absl::ZeroDuration()) {
      if (invalid.empty()) {
        invalid =
            absl::StrCat("spec.minStay: expected a duration such as 30m or 1h, got ", Quoted(stay));
      }
    }
  }
  absl::StatusOr<bool> weights = spec["replicaWeights"].OptionalBool();
  if (!weights.ok() && invalid.empty()) invalid = "spec.replicaWeights: expected true or false";
  policy.replica_weights = weights.value_or(false);
}

}  // namespace

const KindNames& NamesOf(PolicyKind kind) {
  return kind == PolicyKind::kCarbonAwareKarmadaPolicy ? kSeedNames : kOwnNames;
}
const KindNames& NamesOf(TargetKind kind) {
  return kind == TargetKind::kPropagationPolicy ? kPropagationNames : kClusterPropagationNames;
}

std::string CollectionPath(PolicyKind kind) {
  return absl::StrCat("/apis/", NamesOf(kind).group_version, "/", NamesOf(kind).plural);
}
std::string CollectionPath(TargetKind kind) {
  return absl::StrCat("/apis/", NamesOf(kind).group_version, "/", NamesOf(kind).plural);
}

std::string ObjectPath(PolicyKind kind, const std::string& ns, const std::string& name) {
  return absl::StrCat("/apis/", NamesOf(kind).group_version, "/namespaces/", net::UrlEncode(ns),
                      "/", NamesOf(kind).plural, "/", net::UrlEncode(name));
}
std::string ObjectPath(TargetKind kind, const std::string& ns, const std::string& name) {
  if (kind == TargetKind::kClusterPropagationPolicy) {
    return absl::StrCat(CollectionPath(kind), "/", net::UrlEncode(name));
  }
  return absl::StrCat("/apis/", NamesOf(kind).group_version, "/namespaces/", net::UrlEncode(ns),
                      "/", NamesOf(kind).plural, "/", net::UrlEncode(name));
}

std::string CarbonPolicy::Describe() const {
  return absl::StrCat(NamesOf(kind).kind, " ", namespace_name, "/", name);
}

absl::StatusOr<CarbonPolicy> ReadCarbonPolicy(PolicyKind kind, const kube::JsonField& object) {
  CarbonPolicy policy;
  policy.kind = kind;
  const kube::JsonField metadata = object["metadata"];
  CARBONROUTE_ASSIGN_OR_RETURN(policy.name, metadata["name"].RequiredString());
  CARBONROUTE_ASSIGN_OR_RETURN(policy.namespace_name, metadata["namespace"].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(policy.uid, metadata["uid"].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(std::optional<int64_t> generation,
                               metadata["generation"].OptionalInt());
  policy.generation = generation.value_or(0);
  const kube::JsonField spec = object["spec"];
  if (kind == PolicyKind::kCarbonAwareKarmadaPolicy) {
    ReadSeedSpec(spec, policy);
  } else {
    ReadOwnSpec(spec, policy);
  }
  // The target's namespace defaults to the policy's (the seed's sample leaves it to "default").
  if (policy.target_namespace.empty()) policy.target_namespace = policy.namespace_name;
  std::string invalid;
  const std::optional<double> desired = NumberAt(spec["desiredClusters"], invalid);
  if (!desired || *desired < 1 || *desired != static_cast<int>(*desired)) {
    if (policy.invalid.empty()) {
      policy.invalid = spec["desiredClusters"].missing()
                           ? "spec.desiredClusters: required"
                           : "spec.desiredClusters: expected a whole number ≥ 1";
    }
  } else {
    policy.desired_clusters = static_cast<int>(*desired);
  }
  ReadPrevious(object["status"], policy.previous);
  return policy;
}

}  // namespace carbonroute::karmada
