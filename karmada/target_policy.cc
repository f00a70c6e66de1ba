#include "karmada/target_policy.h"

#include <nlohmann/json.hpp>

#include "base/status_macros.h"

namespace carbonroute::karmada {

namespace {

// Each string of an array of cluster names into `out`.
absl::Status ReadNames(const kube::JsonField& list, std::vector<std::string>& out) {
  return list.ForEachElement([&out](const kube::JsonField& name) -> absl::Status {
    absl::StatusOr<std::string> text = name.RequiredString();
    if (!text.ok()) return text.status();
    out.push_back(*std::move(text));
    return absl::OkStatus();
  });
}

}  // namespace

absl::StatusOr<TargetPolicy> ReadTargetPolicy(const kube::JsonField& object) {
  TargetPolicy target;
  const kube::JsonField placement = object["spec"]["placement"];
  CARBONROUTE_RETURN_IF_ERROR(placement.ExpectObjectOrMissing());
  CARBONROUTE_RETURN_IF_ERROR(
      ReadNames(placement["clusterAffinity"]["clusterNames"], target.cluster_names));
  target.uses_cluster_affinities = !placement["clusterAffinities"].missing();
  const kube::JsonField scheduling = placement["replicaScheduling"];
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string type,
                               scheduling["replicaSchedulingType"].OptionalString());
  target.divided = type.empty() || type == "Divided";
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string division,
                               scheduling["replicaDivisionPreference"].OptionalString());
  target.weighted = division == "Weighted";
  auto read_weight = [&target](const kube::JsonField& entry) -> absl::Status {
    std::vector<std::string> names;
    if (absl::Status read = ReadNames(entry["targetCluster"]["clusterNames"], names); !read.ok()) {
      return read;
    }
    absl::StatusOr<std::optional<int64_t>> weight = entry["weight"].OptionalInt();
    if (!weight.ok()) return weight.status();
    if (names.size() == 1 && weight->has_value()) target.static_weights[names[0]] = **weight;
    return absl::OkStatus();
  };
  CARBONROUTE_RETURN_IF_ERROR(
      scheduling["weightPreference"]["staticWeightList"].ForEachElement(read_weight));
  CARBONROUTE_RETURN_IF_ERROR(object["spec"]["resourceSelectors"].ForEachElement(
      [&target](const kube::JsonField& entry) -> absl::Status {
        ResourceSelector selector;
        CARBONROUTE_ASSIGN_OR_RETURN(selector.api_version, entry["apiVersion"].OptionalString());
        CARBONROUTE_ASSIGN_OR_RETURN(selector.kind, entry["kind"].OptionalString());
        CARBONROUTE_ASSIGN_OR_RETURN(selector.namespace_name, entry["namespace"].OptionalString());
        CARBONROUTE_ASSIGN_OR_RETURN(selector.name, entry["name"].OptionalString());
        target.resource_selectors.push_back(std::move(selector));
        return absl::OkStatus();
      }));
  return target;
}

std::string ClusterNamesPatch(const std::vector<std::string>& clusters,
                              const std::map<std::string, int64_t>& weights) {
  nlohmann::json placement = {{"clusterAffinity", {{"clusterNames", clusters}}}};
  if (!weights.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& cluster : clusters) {
      const auto it = weights.find(cluster);
      list.push_back({{"targetCluster", {{"clusterNames", {cluster}}}},
                      {"weight", it == weights.end() ? 1 : it->second}});
    }
    placement["replicaScheduling"] = {{"replicaDivisionPreference", "Weighted"},
                                      {"weightPreference", {{"staticWeightList", list}}}};
  }
  return nlohmann::json{{"spec", {{"placement", placement}}}}.dump();
}

}  // namespace carbonroute::karmada
