#include "routing/destination_rule_patch.h"

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/utc_time.h"

namespace carbonroute::routing {
namespace {

using Json = nlohmann::ordered_json;

bool Present(const kube::JsonField& field) {
  if (field.missing()) return false;
  bool empty = true;  // an empty list or object sets nothing
  if (field.is_array() || field.is_object()) {
    (void)field.ForEachElement([&](const kube::JsonField&) {
      empty = false;
      return absl::OkStatus();
    });
    (void)field.ForEachMember([&](absl::string_view, const kube::JsonField&) {
      empty = false;
      return absl::OkStatus();
    });
    return !empty;
  }
  return true;
}

}  // namespace

RuleCheck CheckDestinationRule(const kube::JsonField& rule) {
  RuleCheck check;
  const kube::JsonField spec = rule["spec"];
  check.host = spec["host"].OptionalString().value_or("");
  const kube::JsonField policy = spec["trafficPolicy"];
  const kube::JsonField locality = policy["loadBalancer"]["localityLbSetting"];
  check.setting_json = locality.Minified();
  check.original =
      rule["metadata"]["annotations"][kOriginalSettingAnnotation].OptionalString().value_or("");
  check.routed_by =
      rule["metadata"]["annotations"][kRoutedByAnnotation].OptionalString().value_or("");
  if (locality["enabled"].missing() || locality["enabled"].OptionalBool().value_or(false)) {
    (void)locality["distribute"].ForEachElement([&](const kube::JsonField& row) {
      DistributeRow held{.from = row["from"].OptionalString().value_or("")};
      (void)row["to"].ForEachMember([&](absl::string_view to, const kube::JsonField& weight) {
        held.to.emplace_back(std::string(to),
                             weight.OptionalInt().value_or(std::nullopt).value_or(0));
        return absl::OkStatus();
      });
      check.held.push_back(std::move(held));
      return absl::OkStatus();
    });
  }
  for (const char* key : {"failover", "failoverPriority"}) {
    if (Present(locality[key])) {
      check.refusal = kFailoverConfigured;
      check.message = absl::StrCat(locality[key].path(),
                                   " is set: Istio refuses distribute beside it; remove it to "
                                   "let carbonroute weight the localities");
      return check;
    }
  }
  if (!Present(policy["outlierDetection"])) {
    check.refusal = kOutlierDetectionMissing;
    check.message =
        "spec.trafficPolicy.outlierDetection is not set: without it the mesh keeps sending to "
        "failing endpoints of a preferred locality; add it (health must override carbon)";
  }
  return check;
}

bool SameRows(const std::vector<DistributeRow>& a, const std::vector<DistributeRow>& b) {
  auto normal = [](const std::vector<DistributeRow>& rows) {
    std::map<std::string, std::map<std::string, int64_t>> out;
    for (const DistributeRow& row : rows) out[row.from].insert(row.to.begin(), row.to.end());
    return out;
  };
  return a.size() == b.size() && normal(a) == normal(b);
}

std::string DescribeRows(const std::vector<DistributeRow>& rows) {
  if (rows.empty()) return "none";
  std::vector<std::string> out;
  for (const DistributeRow& row : rows) {
    std::vector<std::string> to;
    for (const auto& [locality, weight] : row.to) to.push_back(absl::StrCat(locality, " ", weight));
    out.push_back(absl::StrCat(row.from, " → ", absl::StrJoin(to, ", ")));
  }
  return absl::StrJoin(out, "; ");
}

std::string DistributeMergePatch(const LocalityLbSetting& setting, const std::string& keep_original,
                                 const std::string& routed_by) {
  Json distribute = Json::array();
  for (const DistributeRow& row : setting.distribute) {
    Json to = Json::object();
    for (const auto& [locality, weight] : row.to) to[locality] = weight;
    distribute.push_back({{"from", row.from}, {"to", to}});
  }
  Json patch = {{"spec",
                 {{"trafficPolicy",
                   {{"loadBalancer",
                     {{"localityLbSetting", {{"enabled", true}, {"distribute", distribute}}}}}}}}}};
  if (!keep_original.empty()) {
    patch["metadata"]["annotations"][kOriginalSettingAnnotation] = keep_original;
  }
  if (!routed_by.empty()) patch["metadata"]["annotations"][kRoutedByAnnotation] = routed_by;
  return patch.dump();
}

absl::StatusOr<std::string> RestorePatch(const std::string& original) {
  Json setting = Json::parse(original, nullptr, /*allow_exceptions=*/false);
  if (setting.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metadata.annotations[", kOriginalSettingAnnotation, "]: not JSON: ", original));
  }
  // null removes the field in a merge patch: a rule that had none gets none back. A setting
  // that was an object replaces this policy's, field by field: what it wrote and the original
  // lacked is removed.
  if (setting.is_object()) {
    for (const char* written : {"enabled", "distribute"}) {
      if (!setting.contains(written)) setting[written] = nullptr;
    }
  }
  return Json{
      {"metadata",
       {{"annotations", {{kOriginalSettingAnnotation, nullptr}, {kRoutedByAnnotation, nullptr}}}}},
      {"spec", {{"trafficPolicy", {{"loadBalancer", {{"localityLbSetting", setting}}}}}}}}
      .dump();
}

std::string DescribePlan(const RoutePlan& plan, const std::string& target) {
  std::string out = DescribeFlows(plan, target);
  if (!plan.decided) return out;
  absl::StrAppend(&out,
                  "spec:\n  trafficPolicy:\n    loadBalancer:\n      localityLbSetting:\n"
                  "        enabled: true\n        distribute:\n");
  for (const DistributeRow& row : plan.setting.distribute) {
    absl::StrAppend(&out, "        - from: \"", row.from, "\"\n          to:\n");
    for (const auto& [locality, weight] : row.to) {
      absl::StrAppend(&out, "            \"", locality, "\": ", weight, "\n");
    }
  }
  return out;
}

std::string DescribeFlows(const RoutePlan& plan, const std::string& target) {
  std::string out = absl::StrCat("# ", target, " at ", UtcSeconds(plan.at), "\n");
  absl::StrAppend(&out, absl::StrFormat("# %-22s %-22s %6s %6s %10s %7s  %s\n", "from", "to",
                                        "share", "weight", "gCO2eq/kWh", "RTT", "reason"));
  for (const RouteRow& row : plan.rows) {
    for (const RouteFlow& flow : row.flows) {
      const int64_t percent = plan.WeightOf(row.origin, flow.destination);
      absl::StrAppend(
          &out,
          absl::StrFormat(
              "# %-22s %-22s %5.1f%% %6d %10s %7s  %s\n", row.origin, flow.destination,
              100 * flow.share, percent,
              flow.grams_per_kwh ? absl::StrFormat("%.1f", *flow.grams_per_kwh) : "-",
              flow.rtt ? absl::StrFormat("%.0f ms", absl::ToDoubleMilliseconds(*flow.rtt)) : "-",
              flow.reason));
    }
  }
  if (!plan.decided) {
    absl::StrAppend(&out, "# no destination has a current reading: nothing to write\n");
  }
  return out;
}

}  // namespace carbonroute::routing
