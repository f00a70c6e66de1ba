#include "routing/http_route_patch.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "routing/destination_rule_patch.h"

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

absl::StatusOr<std::map<std::string, int64_t>> BackendPercents(
    const RouteRow& row, const BackendLocalities& per_backend) {
  std::map<std::string, double> endpoints;  // per locality, over every backend
  for (const auto& [key, localities] : per_backend) {
    for (const auto& [locality, n] : localities) endpoints[locality] += n;
  }
  std::vector<DestinationShare> shares;
  for (const auto& [key, localities] : per_backend) {
    DestinationShare share{.locality = key};
    for (const auto& [locality, n] : localities) {
      for (const RouteFlow& flow : row.flows) {
        if (flow.destination != locality || endpoints[locality] <= 0) continue;
        share.share += flow.share * n / endpoints[locality];
        if (flow.rtt) share.rtt = std::min(share.rtt, *flow.rtt);
      }
    }
    shares.push_back(std::move(share));
  }
  CARBONROUTE_ASSIGN_OR_RETURN(const std::vector<LocalityWeight> percents, PercentWeights(shares));
  std::map<std::string, int64_t> weights;
  for (const LocalityWeight& weight : percents) weights[weight.locality] = weight.percent;
  return weights;
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

RouteKept ReadRouteKept(const kube::JsonField& route) {
  const kube::JsonField annotations = route["metadata"]["annotations"];
  return {.original = annotations[kOriginalWeightsAnnotation].OptionalString().value_or(""),
          .routed_by = annotations[kRoutedByAnnotation].OptionalString().value_or(""),
          .has_annotations = !annotations.missing()};
}

namespace {

using RouteJson = nlohmann::json;

// An annotation's JSON pointer (RFC 6901: "/" in a key is written "~1").
std::string AnnotationPointer(const std::string& key) {
  std::string escaped;
  for (const char c : key) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped.push_back(c);
    }
  }
  return absl::StrCat("/metadata/annotations/", escaped);
}

// Tests the backend's name at its index, then sets its weight.
void AddWeightOps(const Backend& backend, RouteJson& ops) {
  const std::string at = absl::StrCat("/spec/rules/", backend.rule, "/backendRefs/", backend.index);
  ops.push_back({{"op", "test"}, {"path", at + "/name"}, {"value", backend.name}});
  ops.push_back({{"op", "add"}, {"path", at + "/weight"}, {"value", backend.weight}});
}

}  // namespace

std::string BackendWeightsPatch(const std::vector<Backend>& backends, const KeepWeights& keep) {
  RouteJson ops = RouteJson::array();
  for (const Backend& backend : backends) AddWeightOps(backend, ops);
  if (keep.original != nullptr) {
    RouteJson original = RouteJson::array();
    for (const Backend& backend : *keep.original) {
      original.push_back({{"rule", backend.rule},
                          {"index", backend.index},
                          {"namespace", backend.namespace_name},
                          {"name", backend.name},
                          {"weight", backend.weight}});
    }
    const RouteJson kept = {{kOriginalWeightsAnnotation, original.dump()},
                            {kRoutedByAnnotation, keep.routed_by}};
    if (!keep.has_annotations) {
      ops.push_back({{"op", "add"}, {"path", "/metadata/annotations"}, {"value", kept}});
    } else {
      for (const auto& [key, value] : kept.items()) {
        ops.push_back({{"op", "add"}, {"path", AnnotationPointer(key)}, {"value", value}});
      }
    }
  }
  return ops.dump();
}

absl::StatusOr<std::vector<Backend>> KeptBackends(const std::string& original) {
  const RouteJson kept = RouteJson::parse(original, nullptr, /*allow_exceptions=*/false);
  const absl::Status invalid =
      absl::InvalidArgumentError(absl::StrCat("metadata.annotations[", kOriginalWeightsAnnotation,
                                              "]: not what carbonroute wrote: ", original));
  if (!kept.is_array()) return invalid;
  std::vector<Backend> backends;
  for (const RouteJson& entry : kept) {
    if (!entry.is_object() || !entry.value("rule", RouteJson()).is_number_unsigned() ||
        !entry.value("index", RouteJson()).is_number_unsigned() ||
        !entry.value("name", RouteJson()).is_string() ||
        !entry.value("weight", RouteJson()).is_number_integer() ||
        !(entry.value("namespace", RouteJson()).is_null() ||
          entry.value("namespace", RouteJson()).is_string())) {
      return invalid;
    }
    backends.push_back({.rule = entry["rule"].get<std::size_t>(),
                        .index = entry["index"].get<std::size_t>(),
                        .namespace_name = entry.value("namespace", ""),
                        .name = entry["name"].get<std::string>(),
                        .weight = entry["weight"].get<int64_t>()});
  }
  return backends;
}

absl::StatusOr<std::string> RestoreWeightsPatch(const std::string& original) {
  CARBONROUTE_ASSIGN_OR_RETURN(const std::vector<Backend> backends, KeptBackends(original));
  RouteJson ops = RouteJson::array();
  for (const Backend& backend : backends) AddWeightOps(backend, ops);
  for (const char* key : {kOriginalWeightsAnnotation, kRoutedByAnnotation}) {
    ops.push_back({{"op", "remove"}, {"path", AnnotationPointer(key)}});
  }
  return ops.dump();
}

}  // namespace carbonroute::routing
