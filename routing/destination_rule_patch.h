// File: routing/destination_rule_patch.h
//
// What the routing controller reads of, and writes into, an Istio
// DestinationRule (networking.istio.io; istio/api
// networking/v1alpha3/destination_rule.proto,
// https://istio.io/latest/docs/reference/config/networking/destination-rule/):
//
//   read:  spec.host; spec.trafficPolicy.outlierDetection (without it Istio keeps
//          sending to failing endpoints of the preferred locality: health must
//          override carbon, so such a rule is not written); spec.trafficPolicy.
//          loadBalancer.localityLbSetting.failover and failoverPriority (Istio
//          refuses `distribute` beside either: such a rule is not written).
//   write: a JSON merge patch (RFC 7386) of spec.trafficPolicy.loadBalancer.
//          localityLbSetting {enabled: true, distribute: [{from, to}]} alone:
//          every other field of the rule is kept (a merge patch replaces the
//          `distribute` list whole, which is this policy's to own).
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_ROUTING_DESTINATION_RULE_PATCH_H_
#define CARBONROUTE_ROUTING_DESTINATION_RULE_PATCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/json_view.h"
#include "routing/istio_distribute.h"
#include "routing/route_plan.h"

namespace carbonroute::routing {

// Why a rule is not written: the Ready=False condition's reason, "" when it can be.
inline constexpr char kFailoverConfigured[] = "FailoverConfigured";
inline constexpr char kOutlierDetectionMissing[] = "OutlierDetectionMissing";

// The annotation that keeps a rule's localityLbSetting as it was before the
// first write (JSON; "null" when it had none), so it can be restored.
inline constexpr char kOriginalSettingAnnotation[] = "carbonroute.io/original-locality-lb-setting";
// The policy that wrote it, "namespace/name": a rule a policy no longer
// targets (or a policy that is gone) gets its original back.
inline constexpr char kRoutedByAnnotation[] = "carbonroute.io/routed-by";

struct RuleCheck {
  std::string host;  // spec.host
  // The localityLbSetting it holds, as JSON ("null" when none), and the
  // annotation kept before the first write ("" when absent).
  std::string setting_json = "null";
  std::string original;
  std::string routed_by;  // kRoutedByAnnotation's value, "" when absent
  // The distribute rows it holds now (empty when none, or localityLbSetting.enabled is false).
  std::vector<DistributeRow> held;
  std::string refusal;  // kFailoverConfigured, kOutlierDetectionMissing or ""
  std::string message;  // for the condition and the log, naming the field
};

RuleCheck CheckDestinationRule(const kube::JsonField& rule);

// Whether two sets of rows say the same (each `to` compared as a map).
bool SameRows(const std::vector<DistributeRow>& a, const std::vector<DistributeRow>& b);
// "europe-west3/* → europe-west3/* 60, europe-west1/* 20; ...", or "none".
std::string DescribeRows(const std::vector<DistributeRow>& rows);

// The merge patch that writes `setting`'s rows; with `keep_original` (the
// rule's localityLbSetting before the first write, JSON), it also annotates
// the rule with it (kOriginalSettingAnnotation) and with `routed_by`
// (kRoutedByAnnotation).
std::string DistributeMergePatch(const LocalityLbSetting& setting,
                                 const std::string& keep_original = "",
                                 const std::string& routed_by = "");
// The merge patch that puts back what kOriginalSettingAnnotation kept and
// removes both annotations. kInvalidArgument when `original` is not JSON.
absl::StatusOr<std::string> RestorePatch(const std::string& original);

// For people: the plan as comment lines ("# from  to  share  weight ..."),
// then the patch as YAML; `target` names what it is for.
std::string DescribePlan(const RoutePlan& plan, const std::string& target);
// The comment lines alone.
std::string DescribeFlows(const RoutePlan& plan, const std::string& target);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_DESTINATION_RULE_PATCH_H_
