// File: contract/metric_labels.h
//
// The label keys and fixed label values of carbonroute's metrics
// (contract/metric_names.h says which metric carries which labels;
// docs/architecture.md "Metric contract" lists them). The collector writes
// them, scheduler-lite, the dashboards and the alert rules read them.
//
// Thread safety: constants and pure functions.
#ifndef CARBONROUTE_CONTRACT_METRIC_LABELS_H_
#define CARBONROUTE_CONTRACT_METRIC_LABELS_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace carbonroute {
namespace metric_labels {

// Grid location code: Electricity Maps zone ("DE"), WattTime region
// ("CAISO_NORTH"), UK Carbon Intensity region ("national", "regionid/13").
inline constexpr char kLocation[] = "location";
inline constexpr char kPreferred[] = "preferred";           // a fallback's first provider
inline constexpr char kProvider[] = "provider";             // the configured provider name
inline constexpr char kEmissionsType[] = "emissions_type";  // EmissionsTypeName()
inline constexpr char kEstimated[] = "estimated";           // EstimatedLabel()
inline constexpr char kWindow[] = "window";                 // ForecastWindow::label
inline constexpr char kUnits[] = "units";  // a provider's own unit, e.g. "lbs_co2_per_mwh"
inline constexpr char kOutcome[] = "outcome";
inline constexpr char kState[] = "state";    // polling/poller.h SeriesStateLabel()
inline constexpr char kSource[] = "source";  // the probing node's name
inline constexpr char kTarget[] = "target";  // the peer's configured name
inline constexpr char kMethod[] = "method";  // RttMethodName()
inline constexpr char kNode[] = "node";
inline constexpr char kPod[] = "pod";        // a Pod's name (the emissions rules' records)
inline constexpr char kRegion[] = "region";  // cloud region (topology.kubernetes.io/region)
inline constexpr char kZone[] = "zone";      // cloud zone (topology.kubernetes.io/zone)
// Prometheus' own target label, which scheduler-lite also sets on what it
// scrapes directly: which collector a sample came from.
inline constexpr char kInstance[] = "instance";
inline constexpr char kSourceZone[] = "source_zone";  // carbonroute_zone_rtt_seconds
inline constexpr char kTargetZone[] = "target_zone";
inline constexpr char kVerb[] = "verb";  // extender verb: "filter", "prioritize"
inline constexpr char kCode[] = "code";  // HTTP status code
// The controllers' (scheduler-lite hold, karmada --controller, route --controller, the KEDA
// publisher).
inline constexpr char kKind[] = "kind";            // an API object's kind: "Job", "Pod", ...
inline constexpr char kReason[] = "reason";        // why a held object was released
inline constexpr char kNamespace[] = "namespace";  // an API object's namespace
inline constexpr char kPolicy[] = "policy";        // a placement policy's name
inline constexpr char kConfigMap[] = "configmap";  // a KEDA ConfigMap's name
inline constexpr char kCluster[] = "cluster";      // a Karmada member cluster
inline constexpr char kActive[] = "active";        // "true" / "false": the cluster is placed on
inline constexpr char kResult[] = "result";        // what a reconcile or a write came to
// The routing controller's: Istio localities ("region/zone/*") a share of requests goes
// between; `target` (kTarget) is "DestinationRule/NAME" there.
inline constexpr char kFrom[] = "from";
inline constexpr char kTo[] = "to";
// The carbon-aware-karmada-operator's own series: its policy's name.
inline constexpr char kApp[] = "app";
// The savings ledger's (ledger/ledger.h).
inline constexpr char kController[] = "controller";       // karmada, hold, extender, route
inline constexpr char kMode[] = "mode";                   // enforced, shadow
inline constexpr char kEnergySource[] = "energy_source";  // kepler, dcgm, model, declared
inline constexpr char kBasis[] = "basis";                 // chosen, counterfactual
inline constexpr char kBasisChosen[] = "chosen";
inline constexpr char kBasisCounterfactual[] = "counterfactual";
// The emissions rules' energy records (deploy/prometheus/carbonroute-emissions.yaml):
// which meter measured it (kepler, dcgm) and which part of the machine (total, cpu, gpu).
inline constexpr char kMeter[] = "meter";
inline constexpr char kComponent[] = "component";
// carbonroute_build_info's (as every Prometheus exporter's *_build_info, from
// github.com/prometheus/common/version): what the binary was built from.
inline constexpr char kVersion[] = "version";
inline constexpr char kRevision[] = "revision";
inline constexpr char kBranch[] = "branch";
inline constexpr char kCompiler[] = "compiler";
// Which exporter an RTT series comes from (model_sources/rtt_sources.h).
inline constexpr char kExporter[] = "exporter";

// carbonroute_cache_lookups_total{outcome}.
inline constexpr char kCacheHit[] = "hit";
inline constexpr char kCacheMiss[] = "miss";

// carbonroute_cache_errors_total{operation}: which cache operation failed.
inline constexpr char kOperation[] = "operation";
inline constexpr char kCachePut[] = "put";                   // a current reading
inline constexpr char kCachePutMany[] = "put_many";          // a history backfill
inline constexpr char kCachePutForecast[] = "put_forecast";  // a forecast's points
inline constexpr char kCacheRecordFetch[] = "record_fetch";  // when a history call was made
inline constexpr char kCacheLookup[] = "lookup";             // any read
inline constexpr char kCachePrune[] = "prune";               // deleting expired rows
inline constexpr const char* kCacheOperations[] = {
    kCachePut, kCachePutMany, kCachePutForecast, kCacheRecordFetch, kCacheLookup, kCachePrune};

}  // namespace metric_labels

// "true" / "false": the `estimated` label (a provider's estimate, not yet measured).
constexpr absl::string_view EstimatedLabel(bool estimated) { return estimated ? "true" : "false"; }

// How an RTT of carbonroute_rtt_seconds was obtained: the `method` label.
enum class RttMethod {
  kMeasured,  // the prober's smoothed RTT, exported only while fresh
  kDeclared,  // the static RTT matrix (contract/rtt_matrix.h)
};

constexpr absl::string_view RttMethodName(RttMethod method) {
  return method == RttMethod::kMeasured ? "measured" : "declared";
}

// Inverse of RttMethodName; std::nullopt for anything else.
constexpr std::optional<RttMethod> ParseRttMethod(absl::string_view name) {
  if (name == "measured") return RttMethod::kMeasured;
  if (name == "declared") return RttMethod::kDeclared;
  return std::nullopt;
}

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_METRIC_LABELS_H_
