#include "routing_controller/policy_status.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/utc_time.h"

namespace carbonroute::routing {
namespace {

using JsonValue = nlohmann::json;

constexpr const char* kConditionTypes[] = {"Ready", "DataMissing", "TargetNotFound",
                                           "FailoverConfigured", "OutlierDetectionMissing"};

}  // namespace

std::string PolicyStatusBody(const RoutingPolicy& policy,
                             const std::vector<TargetOutcome>& outcomes,
                             const TransitionTimes& since) {
  JsonValue targets = JsonValue::array();
  std::map<std::string, std::pair<bool, std::string>> conditions;  // type → {true?, message}
  std::string first_problem, first_message;
  for (const TargetOutcome& outcome : outcomes) {
    JsonValue target = {
        {"kind",
         outcome.target.kind == TargetKind::kDestinationRule ? "DestinationRule" : "HTTPRoute"},
        {"name", outcome.target.name}};
    if (outcome.plan && outcome.plan->decided) {
      JsonValue origins = JsonValue::array();
      for (const RouteRow& row : outcome.plan->rows) {
        JsonValue to = JsonValue::array();
        for (const RouteFlow& flow : row.flows) {
          JsonValue entry = {{"locality", flow.destination},
                             {"weight", outcome.plan->WeightOf(row.origin, flow.destination)}};
          if (flow.grams_per_kwh) entry["carbonIntensity"] = *flow.grams_per_kwh;
          if (flow.rtt) entry["rttMs"] = absl::ToDoubleMilliseconds(*flow.rtt);
          entry["reason"] = flow.reason;
          to.push_back(std::move(entry));
        }
        origins.push_back({{"from", row.origin}, {"to", std::move(to)}});
      }
      target["origins"] = std::move(origins);
    }
    targets.push_back(std::move(target));
    if (!outcome.reason.empty()) {
      auto& [set, message] = conditions[outcome.reason];
      set = true;
      message = message.empty() ? outcome.message : absl::StrCat(message, "; ", outcome.message);
      if (first_problem.empty()) {
        first_problem = outcome.reason;
        first_message = outcome.message;
      }
    }
    if (outcome.plan && !outcome.plan->without_reading.empty() && outcome.reason.empty()) {
      auto& [set, message] = conditions["DataMissing"];
      set = true;
      message = absl::StrCat("no current reading for ",
                             absl::StrJoin(outcome.plan->without_reading, ", "),
                             ": no traffic is sent there from other localities");
    }
  }
  JsonValue list = JsonValue::array();
  for (const char* type : kConditionTypes) {
    bool is_true = false;
    std::string reason, message;
    if (std::string(type) == "Ready") {
      is_true = first_problem.empty();
      reason = is_true ? "Reconciled" : first_problem;
      message = is_true ? "every target holds the planned weights" : first_message;
    } else {
      const auto it = conditions.find(type);
      is_true = it != conditions.end();
      reason = is_true ? type : "None";
      message = is_true ? it->second.second : "";
    }
    const std::string status = is_true ? "True" : "False";
    const absl::Time at = since(type, status);
    JsonValue condition = {{"type", type},
                           {"status", status},
                           {"reason", reason},
                           {"lastTransitionTime", UtcSeconds(at)},
                           {"observedGeneration", policy.generation}};
    if (!message.empty()) condition["message"] = message;
    list.push_back(std::move(condition));
  }
  return JsonValue{{"status",
                    {{"observedGeneration", policy.generation},
                     {"targets", std::move(targets)},
                     {"conditions", std::move(list)}}}}
      .dump();
}

}  // namespace carbonroute::routing
