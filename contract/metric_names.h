// File: contract/metric_names.h
//
// Every Prometheus metric name carbonroute exports, in one place. These names
// are a contract (docs/architecture.md "Metric contract", docs/metrics.md):
// scheduler-lite, the dashboards, the alert rules and the tests rely on them.
// Conventions: base units in the name, `_total` on counters
// (https://prometheus.io/docs/practices/naming/).
#ifndef CARBONROUTE_CONTRACT_METRIC_NAMES_H_
#define CARBONROUTE_CONTRACT_METRIC_NAMES_H_

namespace carbonroute::metric_names {

// gauge{location, provider, emissions_type, estimated}: the reading valid now,
// gCO2eq/kWh. WattTime's lbs/MWh are converted with 1 lb/MWh = 0.453592 g/kWh.
inline constexpr char kCarbonIntensity[] = "carbonroute_carbon_intensity_grams_per_kilowatt_hour";
// gauge{location, provider}: relative signal 0–100 where no absolute value exists.
inline constexpr char kCarbonIntensityPercentile[] = "carbonroute_carbon_intensity_percentile";
// gauge{location, provider, emissions_type}: end of the current reading's validity, Unix seconds.
inline constexpr char kCarbonIntensityValidTo[] =
    "carbonroute_carbon_intensity_valid_to_timestamp_seconds";
// gauge{location, provider, emissions_type, window}: forecast mean over the next window.
inline constexpr char kForecastMean[] =
    "carbonroute_carbon_intensity_forecast_mean_grams_per_kilowatt_hour";
// gauge{source, target, method}: smoothed RTT from this node to a peer
// (method "measured": probes, only while fresh; "declared": the static matrix).
inline constexpr char kRtt[] = "carbonroute_rtt_seconds";
// gauge{source_zone, target_zone}: median of this node's fresh measured RTTs
// to the peers of target_zone (each collector exports its own; the
// `instance` label Prometheus adds tells them apart).
inline constexpr char kZoneRtt[] = "carbonroute_zone_rtt_seconds";
// histogram{source, target}: every answered probe's RTT (buckets 50 µs – 5 s).
inline constexpr char kProbeRtt[] = "carbonroute_probe_rtt_seconds";
// gauge{source, target}: loss over the recent window of probes, 0–1.
inline constexpr char kProbeLossRatio[] = "carbonroute_probe_loss_ratio";
// counter{source, target}: probes sent / answered within the timeout.
inline constexpr char kProbesSent[] = "carbonroute_probe_sent_total";
inline constexpr char kProbesReceived[] = "carbonroute_probe_received_total";
// counter{provider, outcome}: upstream calls by outcome (polling/poller.h OutcomeLabel:
// ok, not_found, parse_error, bad_request, timeout, unavailable, rate_limited, unauthenticated,
// permission_denied, not_in_plan, error).
inline constexpr char kProviderRequests[] = "carbonroute_provider_requests_total";
// counter{location, provider, preferred}: times `provider` began answering for `location` in
// place of the fallback's first provider, `preferred`, which had no valid reading (the
// top-level `fallback` of docs/configuration.md).
inline constexpr char kProviderFallbacks[] = "carbonroute_provider_fallbacks_total";
// gauge{provider, state}: the provider's series (one per location) by state at
// the end of its last poll: ok, backoff (a transient failure's pause),
// rate_limited (the account's pause) or configuration_error (paused for
// poll.config_error_retry). Every state is exported, 0 included.
inline constexpr char kProviderSeries[] = "carbonroute_provider_series";
// gauge{provider}: the grid locations a provider polls now (with `locations: nodes`, the
// cluster's).
inline constexpr char kProviderLocations[] = "carbonroute_provider_locations";
// gauge{provider}: Nodes whose grid location the provider has no code for
// (`locations: nodes`; e.g. no WattTime region): not polled, logged once.
inline constexpr char kProviderUnmappedNodes[] = "carbonroute_provider_unmapped_nodes";
// gauge{provider}: the calls per calendar month this collector keeps to (its share of
// the account's `monthly_budget`), and the calls left of it this month.
inline constexpr char kProviderBudget[] = "carbonroute_provider_budget_calls";
inline constexpr char kProviderBudgetRemaining[] = "carbonroute_provider_budget_remaining_calls";
// gauge (=1){version, revision, branch, compiler}: what the binary was built from
// (both servers; base/build_info.h).
inline constexpr char kBuildInfo[] = "carbonroute_build_info";
// gauge (=1){node, location, region, zone}: which grid location a node draws power from.
inline constexpr char kNodeInfo[] = "carbonroute_node_info";
// counter{outcome}: cache lookups made instead of provider calls (hit) or before them (miss).
inline constexpr char kCacheLookups[] = "carbonroute_cache_lookups_total";
// counter{operation}: failed cache operations (disk full, I/O error, locked
// file); every operation of metric_labels::kCacheOperations is exported, 0 included.
inline constexpr char kCacheErrors[] = "carbonroute_cache_errors_total";
// gauge{location, provider, emissions_type}: seconds since the exported reading was
// fetched from its provider (grows while a failing provider's last value is kept).
inline constexpr char kCarbonIntensityAge[] = "carbonroute_carbon_intensity_age_seconds";
// gauge (=1){provider, location, units}: the unit a provider answered in, before conversion.
inline constexpr char kProviderUnits[] = "carbonroute_provider_units_info";
// gauge: Unix time of the end of the last completed poll.
inline constexpr char kLastPoll[] = "carbonroute_last_poll_timestamp_seconds";

// scheduler-lite's own metrics (`scheduler-lite serve`):
// counter{verb, code}: extender requests by verb (filter, prioritize) and HTTP status.
inline constexpr char kExtenderRequests[] = "carbonroute_scheduler_extender_requests_total";
// histogram{verb}: server-side time to answer an extender request.
inline constexpr char kExtenderRequestDuration[] =
    "carbonroute_scheduler_extender_request_duration_seconds";
// counter{location}: prioritize answers, by the grid location of the top-scored candidate.
inline constexpr char kSchedulerDecisions[] = "carbonroute_scheduler_decisions_total";
// gauge: seconds since the model was last rebuilt from its sources.
inline constexpr char kSchedulerModelAge[] = "carbonroute_scheduler_model_age_seconds";
// gauge: grid locations with a carbon reading in the model. 0 while nodes are
// known means no carbon source answers (the carbon role is down): carbon
// scores are then equal and placement follows latency alone (fail open).
inline constexpr char kSchedulerModelCarbonLocations[] =
    "carbonroute_scheduler_model_carbon_locations";

// gauge: Nodes whose collector's carbonroute_node_info and Node object (serve watching
// Nodes) name different grid locations; each is logged once, the collector's is used.
inline constexpr char kSchedulerNodeLocationMismatches[] =
    "carbonroute_scheduler_node_location_mismatches";

// gauge: 1 while serve's Pod watch (the savings ledger's, and serve --shadow's) answers, 0
// while its requests fail (nothing is booked then); absent when serve watches no Pods.
inline constexpr char kSchedulerPodWatchUp[] = "carbonroute_scheduler_pod_watch_up";

// The series every controller exports alike (controller_runtime/controller_metrics.h),
// one pattern for each controller's names below: leader (gauge: 1 while this replica holds
// the Lease, or acts alone, else 0), errors (counter{operation}: failed API calls and reads)
// and last_reconcile (gauge{the object's labels}: Unix seconds of its last reconcile); null
// where the controller has none.
struct ControllerMetricNames {
  const char* leader = nullptr;
  const char* errors = nullptr;
  const char* last_reconcile = nullptr;
};

// The collector's KEDA ConfigMaps (`publish.keda_configmaps`, keda/keda_publisher.h);
// `namespace`, `configmap`: the ConfigMap.
// gauge: 1 while this replica holds the publishing Lease (it writes), else 0.
inline constexpr char kKedaLeader[] = "carbonroute_keda_leader";
// counter{namespace, configmap, result}: passes that wrote (written) or failed to
// write or read (failed); a pass with nothing new counts neither.
inline constexpr char kKedaWrites[] = "carbonroute_keda_configmap_writes_total";
// gauge{namespace, configmap}: the records (EmissionsDataDTO) the ConfigMap holds now.
inline constexpr char kKedaRecords[] = "carbonroute_keda_configmap_records";
// gauge{namespace, configmap}: Unix seconds of the last pass that left the ConfigMap
// current (written, or already holding the same records).
inline constexpr char kKedaLastCurrent[] =
    "carbonroute_keda_configmap_last_current_timestamp_seconds";
inline constexpr ControllerMetricNames kKedaPublisherMetrics{.leader = kKedaLeader};

// scheduler-lite's hold controller (`scheduler-lite hold`, hold/hold_controller.h):
// gauge{kind}: Jobs and Pods held now (opted in, suspended or gated, not yet released).
inline constexpr char kHoldObjects[] = "carbonroute_hold_objects";
// gauge{kind}: held objects whose latest start (deadline − expected runtime) has
// passed: should be 0 (they are released at once); the CarbonrouteHoldPastDeadline alert.
inline constexpr char kHoldPastDeadline[] = "carbonroute_hold_past_deadline_objects";
// counter{kind, reason}: releases by reason (window, deadline, no_forecast, invalid).
inline constexpr char kHoldReleases[] = "carbonroute_hold_releases_total";
// histogram{kind}: seconds from creation to release.
inline constexpr char kHoldDelay[] = "carbonroute_hold_delay_seconds";
// summary{kind} (no quantiles: _sum and _count): per release, the forecast intensity
// of a run started at creation minus that at release, gCO2eq/kWh (may be negative
// when the deadline forces a dirtier hour); _sum ÷ _count is the mean avoided.
inline constexpr char kHoldIntensityAvoided[] = "carbonroute_hold_intensity_avoided_grams_per_kwh";
// gauge: 1 while this replica holds the Lease (or runs alone), else 0.
inline constexpr char kHoldLeader[] = "carbonroute_hold_leader";
// counter{operation}: failed API calls (list, patch, lease) and forecast reads (forecast).
inline constexpr char kHoldErrors[] = "carbonroute_hold_errors_total";
inline constexpr ControllerMetricNames kHoldControllerMetrics{.leader = kHoldLeader,
                                                              .errors = kHoldErrors};

// scheduler-lite's routing controller (`scheduler-lite route --controller`,
// routing_controller/routing_controller.h); `namespace`, `policy`: the CarbonRoutingPolicy,
// `target`: "DestinationRule/NAME", `from`/`to`: Istio localities.
// gauge{namespace, policy, target, from, to}: the share of `from`'s requests
// sent to `to` as written (0–1).
inline constexpr char kRoutingWeight[] = "carbonroute_routing_weight_ratio";
// gauge{namespace, policy, target, from, basis}: the expected intensity of a
// request from `from`, gCO2eq/kWh: basis "weighted" under the weights written,
// "local" under the mesh's default (100 % local while healthy).
inline constexpr char kRoutingExpectedIntensity[] =
    "carbonroute_routing_expected_intensity_grams_per_kilowatt_hour";
// counter{namespace, policy, result}: target reconciles by result (written, unchanged,
// data_missing, target_not_found, failover_configured, outlier_detection_missing,
// invalid, error).
inline constexpr char kRoutingWrites[] = "carbonroute_routing_writes_total";
// gauge{namespace, policy}: Unix seconds of the policy's last reconcile; the
// CarbonrouteRoutingPolicyNotReconciled alert.
inline constexpr char kRoutingLastReconcile[] =
    "carbonroute_routing_last_reconcile_timestamp_seconds";
// gauge: 1 while this replica holds the Lease (or runs alone), else 0.
inline constexpr char kRoutingLeader[] = "carbonroute_routing_leader";
// counter{operation}: failed API calls (list, get, patch, status, event, lease) and model loads.
inline constexpr char kRoutingErrors[] = "carbonroute_routing_errors_total";
inline constexpr ControllerMetricNames kRoutingControllerMetrics{
    .leader = kRoutingLeader, .errors = kRoutingErrors, .last_reconcile = kRoutingLastReconcile};

// scheduler-lite's re-placement controller (`scheduler-lite rebalance --controller`,
// rebalance/rebalance_controller.h); `namespace`, `policy`: the CarbonRebalancePolicy.
// gauge{namespace, policy}: its Pods a cleaner Node has beaten by more than the tolerance for
// longer than minStay, whose move pays (they are moved as the limits allow).
inline constexpr char kRebalanceCandidates[] = "carbonroute_rebalance_candidates";
// counter{namespace, policy, result}: eviction attempts by result: evicted, would_evict
// (--dry-run), blocked_by_pdb (a PodDisruptionBudget's 429), throttled (API Priority and
// Fairness' 429), failed; the CarbonrouteRebalanceEvictionsFailing alert.
inline constexpr char kRebalanceEvictions[] = "carbonroute_rebalance_evictions_total";
// gauge{namespace, policy}: the grams its moves gained since this replica started, signed:
// the stays' grams where they had been against where they run, minus the restarts' (the
// savings ledger's series, controller="rebalance", hold the same per namespace).
inline constexpr char kRebalanceGramsGained[] = "carbonroute_rebalance_gained_grams";
// gauge{namespace, policy}: Unix seconds of the policy's last reconcile.
inline constexpr char kRebalanceLastReconcile[] =
    "carbonroute_rebalance_last_reconcile_timestamp_seconds";
// gauge: 1 while this replica holds the Lease (or runs alone), else 0.
inline constexpr char kRebalanceLeader[] = "carbonroute_rebalance_leader";
// counter{operation}: failed API calls (list, evict, status, event, lease) and model loads.
inline constexpr char kRebalanceErrors[] = "carbonroute_rebalance_errors_total";
inline constexpr ControllerMetricNames kRebalanceControllerMetrics{
    .leader = kRebalanceLeader,
    .errors = kRebalanceErrors,
    .last_reconcile = kRebalanceLastReconcile};

// scheduler-lite's Karmada controller (`scheduler-lite karmada --controller`,
// karmada/karmada_controller.h); `namespace`, `policy`: the policy object, `kind`:
// CarbonAwareKarmadaPolicy or CarbonPlacementPolicy.
// gauge{kind, namespace, policy, cluster}: 1 while the cluster is chosen, else 0.
inline constexpr char kKarmadaClusterActive[] = "carbonroute_karmada_cluster_active";
// gauge{kind, namespace, policy, cluster, location}: the intensity the choice was made on,
// gCO2eq/kWh (absent while the cluster has no usable reading).
inline constexpr char kKarmadaClusterIntensity[] =
    "carbonroute_karmada_cluster_carbon_intensity_grams_per_kilowatt_hour";
// counter{kind, namespace, policy}: writes of a new clusterNames set to the target.
inline constexpr char kKarmadaMoves[] = "carbonroute_karmada_moves_total";
// counter{kind, namespace, policy, result}: reconciles by result (placed, unchanged,
// data_missing, target_not_found, invalid, error).
inline constexpr char kKarmadaReconciles[] = "carbonroute_karmada_reconciles_total";
// gauge{kind, namespace, policy}: Unix seconds of the policy's last reconcile; the
// CarbonrouteKarmadaPolicyNotReconciled alert.
inline constexpr char kKarmadaLastReconcile[] =
    "carbonroute_karmada_last_reconcile_timestamp_seconds";
// gauge: 1 while this replica holds the Lease (or runs alone), else 0.
inline constexpr char kKarmadaLeader[] = "carbonroute_karmada_leader";
// counter{operation}: failed API calls (list, patch, status, event, lease) and model loads (model).
inline constexpr char kKarmadaErrors[] = "carbonroute_karmada_errors_total";
inline constexpr ControllerMetricNames kKarmadaControllerMetrics{
    .leader = kKarmadaLeader, .errors = kKarmadaErrors, .last_reconcile = kKarmadaLastReconcile};
// The carbon-aware-karmada-operator's own series, exported unchanged so its
// dashboards keep working (internal/controller/metrics.go in
// https://github.com/rossf7/carbon-aware-karmada-operator):
// gauge{cluster, location, active}: the cluster's intensity; `active` "true"/"false".
inline constexpr char kSeedClusterIntensity[] =
    "carbon_aware_karmada_operator_cluster_carbon_intensity";
// counter{app}: reconciles, and failed reconciles, per policy name.
inline constexpr char kSeedReconciles[] = "carbon_aware_karmada_operator_reconciles_total";
inline constexpr char kSeedReconcileErrors[] =
    "carbon_aware_karmada_operator_reconcile_errors_total";

// The savings ledger (ledger/ledger.h; docs/savings.md "What it saved in your cluster"),
// one contract for every controller. Every series carries `controller` (karmada, hold,
// extender, ...), `namespace` (the workload's), `mode` (enforced or shadow) and
// `emissions_type` (one series never mixes average and marginal intensities).
// counter{..., energy_source}: the energy the decisions' workloads used, J
// (energy_source: kepler, dcgm, model, declared).
inline constexpr char kLedgerEnergy[] = "carbonroute_ledger_energy_joules_total";
// counter{..., basis}: that energy priced at the intensities of what ran (basis "chosen";
// in shadow mode, what carbonroute would have chosen) and of the stated alternative (basis
// "counterfactual"), gCO2eq. The saving is counterfactual − chosen, and may be negative.
inline constexpr char kLedgerEmissions[] = "carbonroute_ledger_emissions_grams_total";
// counter{..., outcome}: decisions by outcome (docs/metrics.md lists the values).
inline constexpr char kLedgerDecisions[] = "carbonroute_ledger_decisions_total";
// counter{controller, emissions_type, reason}: intervals that added nothing to either basis
// because an intensity or the energy was unknown (never a 0 in their place).
inline constexpr char kLedgerIntervalsSkipped[] = "carbonroute_ledger_intervals_skipped_total";
// counter{..., basis}: the RTT from the workload's origin, summed over the accruals that have
// one, s (the latency price beside the saving: divide by the accruals counted).
inline constexpr char kLedgerOriginRtt[] = "carbonroute_ledger_origin_rtt_seconds_total";
// counter{..., basis}: the accruals that had an origin RTT (the divisor of the sum above).
inline constexpr char kLedgerOriginRttAccruals[] = "carbonroute_ledger_origin_rtt_accruals_total";

}  // namespace carbonroute::metric_names

#endif  // CARBONROUTE_CONTRACT_METRIC_NAMES_H_
