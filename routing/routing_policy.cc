#include "routing/routing_policy.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::routing {
namespace {

std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

// A string member, or `invalid` set naming it.
std::string StringAt(const kube::JsonField& field, std::string& invalid) {
  return kube::StringOrNote(field, invalid);
}

// A number member ≥ 0 (> 0 when `positive`), or `invalid` set naming it.
std::optional<double> NumberAt(const kube::JsonField& field, bool positive, std::string& invalid) {
  return kube::NumberOrNote(field, positive, invalid);
}

void ReadTargets(const kube::JsonField& list, RoutingPolicy& policy) {
  std::string& invalid = policy.invalid;
  std::set<std::pair<TargetKind, std::string>> seen;
  const absl::Status shape = list.ForEachElement([&](const kube::JsonField& ref) {
    const std::string group = StringAt(ref["group"], invalid);
    const std::string kind = StringAt(ref["kind"], invalid);
    TargetRef target;
    if (group == "networking.istio.io" && kind == "DestinationRule") {
      target.kind = TargetKind::kDestinationRule;
    } else if (group == "gateway.networking.k8s.io" && kind == "HTTPRoute") {
      target.kind = TargetKind::kHttpRoute;
    } else if (invalid.empty()) {
      invalid = absl::StrCat(ref.path(),
                             ": expected {group: networking.istio.io, kind: DestinationRule} or "
                             "{group: gateway.networking.k8s.io, kind: HTTPRoute}, got ",
                             Quoted(group), " ", Quoted(kind));
    }
    target.name = StringAt(ref["name"], invalid);
    if (target.name.empty() && invalid.empty())
      invalid = absl::StrCat(ref.path(), ".name: required");
    if (!seen.insert({target.kind, target.name}).second && invalid.empty()) {
      invalid = absl::StrCat(ref.path(), ": ", Quoted(target.name), " is targeted twice");
    }
    policy.targets.push_back(std::move(target));
    return absl::OkStatus();
  });
  if (!shape.ok() && invalid.empty()) invalid = absl::StrCat(list.path(), ": expected a list");
  if (policy.targets.empty() && invalid.empty()) {
    invalid = "spec.targetRefs: name at least one DestinationRule or HTTPRoute";
  }
}

void ReadLocalities(const kube::JsonField& list, const char* amount_key,
                    std::vector<PolicyLocality>& out, std::string& invalid) {
  std::set<std::string> seen;
  const absl::Status shape = list.ForEachElement([&](const kube::JsonField& entry) {
    PolicyLocality locality;
    locality.locality = StringAt(entry["locality"], invalid);
    if (locality.locality.empty()) {
      if (invalid.empty()) invalid = absl::StrCat(entry.path(), ".locality: required");
      return absl::OkStatus();
    }
    if (!absl::StrContains(locality.locality, '/')) absl::StrAppend(&locality.locality, "/*");
    locality.region = StringAt(entry["region"], invalid);
    if (locality.region.empty()) locality.region = LocalityRegion(locality.locality);
    locality.location = StringAt(entry["location"], invalid);
    locality.amount = NumberAt(entry[amount_key], /*positive=*/false, invalid);
    if (!seen.insert(locality.locality).second && invalid.empty()) {
      invalid =
          absl::StrCat(entry.path(), ".locality: ", Quoted(locality.locality), " is given twice");
    }
    out.push_back(std::move(locality));
    return absl::OkStatus();
  });
  if (!shape.ok() && invalid.empty()) invalid = absl::StrCat(list.path(), ": expected a list");
}

}  // namespace

std::string LocalityRegion(const std::string& locality) {
  return std::string(locality.substr(0, locality.find('/')));
}

std::string TargetRef::Describe(const std::string& namespace_name) const {
  return absl::StrCat(kind == TargetKind::kDestinationRule ? "DestinationRule " : "HTTPRoute ",
                      namespace_name, "/", name);
}

std::string RoutingPolicy::Describe() const {
  return absl::StrCat(kPolicyKind, " ", namespace_name, "/", name);
}

absl::StatusOr<RoutingPolicy> ReadRoutingPolicy(const kube::JsonField& object) {
  CARBONROUTE_RETURN_IF_ERROR(object.RequireObject());
  const kube::JsonField metadata = object["metadata"];
  RoutingPolicy policy;
  CARBONROUTE_ASSIGN_OR_RETURN(policy.name, metadata["name"].RequiredString());
  std::string& invalid = policy.invalid;
  policy.namespace_name = StringAt(metadata["namespace"], invalid);
  if (policy.namespace_name.empty()) policy.namespace_name = "default";
  policy.uid = StringAt(metadata["uid"], invalid);
  if (absl::StatusOr<std::optional<int64_t>> generation = metadata["generation"].OptionalInt();
      generation.ok()) {
    policy.generation = generation->value_or(0);
  }
  (void)metadata["finalizers"].ForEachElement([&](const kube::JsonField& finalizer) {
    policy.finalizers.push_back(finalizer.OptionalString().value_or(""));
    return absl::OkStatus();
  });
  policy.deleting = !metadata["deletionTimestamp"].missing();
  const kube::JsonField spec = object["spec"];
  if (!spec.is_object()) {
    invalid = "spec: required";
    return policy;
  }
  ReadTargets(spec["targetRefs"], policy);
  if (std::optional<double> ms = NumberAt(spec["maxRttMs"], /*positive=*/true, invalid)) {
    policy.max_rtt = absl::Milliseconds(*ms);
  }
  policy.carbon_tolerance =
      NumberAt(spec["carbonToleranceGramsPerKwh"], /*positive=*/false, invalid).value_or(0);
  if (const std::string stay = StringAt(spec["minStay"], invalid); !stay.empty()) {
    if ((!absl::ParseDuration(stay, &policy.min_stay) || policy.min_stay < absl::ZeroDuration()) &&
        invalid.empty()) {
      invalid =
          absl::StrCat("spec.minStay: expected a duration such as 10m or 1h, got ", Quoted(stay));
    }
  }
  policy.headroom_percent =
      NumberAt(spec["headroomPercent"], /*positive=*/false, invalid).value_or(0);
  policy.joules_per_request = NumberAt(spec["joulesPerRequest"], /*positive=*/true, invalid);
  ReadLocalities(spec["localities"], "capacity", policy.localities, invalid);
  ReadLocalities(spec["origins"], "demand", policy.origins, invalid);
  return policy;
}

}  // namespace carbonroute::routing
