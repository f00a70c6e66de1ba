#include "routing/http_route_patch.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::routing {

absl::StatusOr<std::vector<Backend>> ReadBackends(const kube::JsonField& route,
                                                  const std::string& route_namespace) {
  CARBONROUTE_RETURN_IF_ERROR(route.RequireObject());
  std::vector<Backend> backends;
  std::size_t rule_index = 0;
  // One rule's Service backends (a function of its own: nested status macros would shadow).
  auto read_rule = [&](const kube::JsonField& rule) -> absl::Status {
    std::size_t ref_index = 0;
    return rule["backendRefs"].ForEachElement([&](const kube::JsonField& ref) -> absl::Status {
      CARBONROUTE_ASSIGN_OR_RETURN(const std::string group, ref["group"].OptionalString());
      CARBONROUTE_ASSIGN_OR_RETURN(const std::string kind, ref["kind"].OptionalString());
      Backend backend{.rule = rule_index, .index = ref_index++};
      CARBONROUTE_ASSIGN_OR_RETURN(backend.name, ref["name"].RequiredString());
      CARBONROUTE_ASSIGN_OR_RETURN(backend.namespace_name, ref["namespace"].OptionalString());
      if (backend.namespace_name.empty()) backend.namespace_name = route_namespace;
      CARBONROUTE_ASSIGN_OR_RETURN(const std::optional<int64_t> weight,
                                   ref["weight"].OptionalInt());
      backend.weight = weight.value_or(1);
      if (group.empty() && (kind.empty() || kind == "Service")) {
        backends.push_back(std::move(backend));
      }
      return absl::OkStatus();
    });
  };
  const absl::Status rules =
      route["spec"]["rules"].ForEachElement([&](const kube::JsonField& rule) -> absl::Status {
        absl::Status read = read_rule(rule);
        ++rule_index;
        return read;
      });
  if (!rules.ok()) return rules;
  return backends;
}

std::vector<Backend> Reweighted(const std::vector<Backend>& backends,
                                const std::map<std::string, int64_t>& weights) {
  std::map<std::size_t, int64_t> rule_total;
  for (const Backend& backend : backends) {
    const auto it = weights.find(backend.Key());
    rule_total[backend.rule] += it == weights.end() ? 0 : it->second;
  }
  std::vector<Backend> out = backends;
  for (Backend& backend : out) {
    if (rule_total[backend.rule] == 0) continue;  // it would serve nothing: kept
    const auto it = weights.find(backend.Key());
    backend.weight = it == weights.end() ? 0 : it->second;
  }
  return out;
}

std::string BackendWeightsPatch(const std::vector<Backend>& backends) {
  nlohmann::json ops = nlohmann::json::array();
  for (const Backend& backend : backends) {
    const std::string at =
        absl::StrCat("/spec/rules/", backend.rule, "/backendRefs/", backend.index);
    ops.push_back({{"op", "test"}, {"path", at + "/name"}, {"value", backend.name}});
    ops.push_back({{"op", "add"}, {"path", at + "/weight"}, {"value", backend.weight}});
  }
  return ops.dump();
}

}  // namespace carbonroute::routing
