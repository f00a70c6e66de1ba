#include "extender/node_fit.h"

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::extender {
namespace {

std::map<std::string, std::string> StringMapOf(const kube::JsonField& map) {
  std::map<std::string, std::string> out;
  (void)map.ForEachMember([&out](absl::string_view key, const kube::JsonField& value) {
    out[std::string(key)] = value.OptionalString().value_or("");
    return absl::OkStatus();
  });
  return out;
}

std::vector<std::string> StringsOf(const kube::JsonField& list) {
  std::vector<std::string> out;
  (void)list.ForEachElement([&out](const kube::JsonField& value) {
    out.push_back(value.OptionalString().value_or(""));
    return absl::OkStatus();
  });
  return out;
}

bool Holds(const NodeRequirement& requirement, const std::map<std::string, std::string>& labels) {
  const auto label = labels.find(requirement.key);
  const bool has = label != labels.end();
  if (requirement.op == "Exists") return has;
  if (requirement.op == "DoesNotExist") return !has;
  if (requirement.op == "In")
    return has && absl::c_linear_search(requirement.values, label->second);
  if (requirement.op == "NotIn") {
    return !has || !absl::c_linear_search(requirement.values, label->second);
  }
  if (requirement.op == "Gt" || requirement.op == "Lt") {
    int64_t have = 0, bound = 0;
    if (!has || requirement.values.size() != 1 || !absl::SimpleAtoi(label->second, &have) ||
        !absl::SimpleAtoi(requirement.values.front(), &bound)) {
      return false;
    }
    return requirement.op == "Gt" ? have > bound : have < bound;
  }
  return false;  // an operator the API does not have matches nothing
}

bool Tolerates(const Toleration& toleration, const NodeTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (toleration.op == "Exists") return toleration.key.empty() || toleration.key == taint.key;
  return toleration.key == taint.key && toleration.value == taint.value;
}

}  // namespace

absl::StatusOr<FitNode> ReadFitNode(const kube::JsonField& node) {
  FitNode fit;
  CARBONROUTE_ASSIGN_OR_RETURN(fit.name, node["metadata"]["name"].RequiredString());
  fit.labels = StringMapOf(node["metadata"]["labels"]);
  fit.unschedulable = node["spec"]["unschedulable"].OptionalBool().value_or(false);
  (void)node["spec"]["taints"].ForEachElement([&fit](const kube::JsonField& taint) {
    fit.taints.push_back({taint["key"].OptionalString().value_or(""),
                          taint["value"].OptionalString().value_or(""),
                          taint["effect"].OptionalString().value_or("")});
    return absl::OkStatus();
  });
  const kube::JsonField allocatable = node["status"]["allocatable"];
  for (const char* resource : {"cpu", "memory"}) {
    const std::string text = allocatable[resource].OptionalString().value_or("");
    if (text.empty()) continue;  // not reported: not checked
    absl::StatusOr<double> quantity = kube::ParseQuantity(text);
    if (!quantity.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(allocatable[resource].path(), ": not a quantity: \"", text, "\""));
    }
    (std::string(resource) == "cpu" ? fit.allocatable.cpu_cores : fit.allocatable.memory_bytes) =
        *quantity;
  }
  (void)node["status"]["conditions"].ForEachElement([&fit](const kube::JsonField& condition) {
    if (condition["type"].OptionalString().value_or("") == "Ready") {
      fit.ready = condition["status"].OptionalString().value_or("") == "True";
    }
    return absl::OkStatus();
  });
  return fit;
}

FitPod ReadFitPod(const kube::JsonField& pod_spec) {
  FitPod fit;
  fit.node_selector = StringMapOf(pod_spec["nodeSelector"]);
  const kube::JsonField terms =
      pod_spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
              ["nodeSelectorTerms"];
  (void)terms.ForEachElement([&fit](const kube::JsonField& term) {
    std::vector<NodeRequirement>& requirements = fit.required_terms.emplace_back();
    (void)term["matchExpressions"].ForEachElement([&requirements](const kube::JsonField& e) {
      requirements.push_back({e["key"].OptionalString().value_or(""),
                              e["operator"].OptionalString().value_or(""), StringsOf(e["values"])});
      return absl::OkStatus();
    });
    return absl::OkStatus();
  });
  (void)pod_spec["tolerations"].ForEachElement([&fit](const kube::JsonField& t) {
    fit.tolerations.push_back(
        {t["key"].OptionalString().value_or(""), t["operator"].OptionalString().value_or("Equal"),
         t["value"].OptionalString().value_or(""), t["effect"].OptionalString().value_or("")});
    return absl::OkStatus();
  });
  return fit;
}

std::string WhyNotFits(const FitPod& fit, const kube::PodRequests& requests, const FitNode& node,
                       const kube::PodRequests& used) {
  if (node.unschedulable) return "unschedulable";
  if (!node.ready) return "not Ready";
  for (const auto& [key, value] : fit.node_selector) {
    const auto label = node.labels.find(key);
    if (label == node.labels.end() || label->second != value) {
      return absl::StrCat("nodeSelector ", key, "=", value, " not matched");
    }
  }
  if (!fit.required_terms.empty() &&
      absl::c_none_of(fit.required_terms, [&node](const std::vector<NodeRequirement>& term) {
        return absl::c_all_of(term, [&node](const NodeRequirement& requirement) {
          return Holds(requirement, node.labels);
        });
      })) {
    return "required node affinity not matched";
  }
  for (const NodeTaint& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (absl::c_none_of(fit.tolerations,
                        [&taint](const Toleration& t) { return Tolerates(t, taint); })) {
      return absl::StrCat("taint ", taint.key, taint.value.empty() ? "" : "=", taint.value, ":",
                          taint.effect, " not tolerated");
    }
  }
  if (used.cpu_cores + requests.cpu_cores > node.allocatable.cpu_cores) return "insufficient cpu";
  if (used.memory_bytes + requests.memory_bytes > node.allocatable.memory_bytes) {
    return "insufficient memory";
  }
  return "";
}

}  // namespace carbonroute::extender
