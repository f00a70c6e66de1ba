// File: model_sources/model_builder.h
//
// Builds the PlacementModel (placement_model.h) from what the sources give:
//   - samples of the carbonroute metrics (contract/metric_names.h), whether
//     parsed from collectors' /metrics or returned by Prometheus instant queries:
//       carbon_intensity_grams_per_kilowatt_hour (+ valid_to, age, forecast_mean),
//       node_info{node, location, region[, zone]}, rtt_seconds{source, target[, method]},
//       zone_rtt_seconds{source_zone, target_zone};
//   - a static RTT matrix CSV `sending_region,receiving_region,milliseconds`
//     (data/gcp-inter-region-latency-ms.csv), kept as method "declared";
//   - a region → grid location table (contract/region_locations.h: data/cloud-regions.csv,
//     or a `gcp_region,zone` CSV); a region whose zone is unknown is left out.
//
// Build() derives the zone-pair RTTs (PlacementFacts::zone_rtt): the median
// of the measured entries between nodes of the two zones, else the median of
// the zone_rtt_seconds samples for the pair.
//
// Several series for one location (two providers, average and marginal): the
// preferred emissions type wins, then the latest valid_to, then the provider
// name — deterministic. Copies of one series from several collectors (the
// carbon role's replicas; told apart by the `instance` label) are one
// reading: each copy's value goes with its own valid_to, age and forecast
// means, and the copy valid longest, then the freshest (smallest
// carbon_intensity_age_seconds), is taken. Non-finite values are "no data" and
// skipped, except an RTT of +Inf (a pair that never answered), which is kept:
// it fails every latency limit.
//
// Errors: the CSV readers return kInvalidArgument "origin:line: ..." for a
// malformed row; nothing from that file is added.
// Thread safety: a builder is used by one thread; Build() hands out an immutable model.
#ifndef CARBONROUTE_MODEL_SOURCES_MODEL_BUILDER_H_
#define CARBONROUTE_MODEL_SOURCES_MODEL_BUILDER_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "contract/emissions_type.h"
#include "contract/rtt_exporter.h"
#include "kube/kube_node.h"
#include "model_sources/exposition_parser.h"
#include "placement/placement_facts.h"
#include "placement/placement_model.h"

namespace carbonroute::model_sources {

class ModelBuilder {
 public:
  ModelBuilder(absl::Time now, EmissionsType preferred = EmissionsType::kAverage);

  // Which measured RTTs count, in order of preference (--rtt-source; a sample's
  // exporter is its `exporter` label, carbonroute when it has none): a measured
  // sample of another exporter is dropped; for one pair the earlier exporter's
  // wins. Declared RTTs always count, after every measured one. Default:
  // {carbonroute}. Call before AddSamples.
  void SetRttSources(std::vector<RttExporter> exporters) { rtt_sources_ = std::move(exporters); }
  void AddSamples(const std::vector<Sample>& samples);
  absl::Status AddStaticRttCsv(absl::string_view csv, absl::string_view origin);
  absl::Status AddRegionLocationsCsv(absl::string_view csv, absl::string_view origin);
  // The Nodes the Kubernetes API lists (model_sources/api_nodes.h), after the
  // region map: a Node no collector exports (a Liqo virtual node) is added
  // with its grid location (its carbonroute.io/location label, else its
  // region through the region map; "" when neither), region and zone. A Node
  // a collector's node_info already names keeps the collector's location;
  // when the two disagree, the answer names the Node and both locations.
  std::vector<std::string> AddApiNodes(const std::vector<kube::KubeNode>& nodes);

  // What the sources said, with the zone-pair RTTs derived.
  placement::PlacementFacts BuildFacts() const;
  // The same, compiled: the model scoring reads.
  std::shared_ptr<const placement::PlacementModel> Build() const;

 private:
  bool Prefer(const placement::LocationCarbon& a, const placement::LocationCarbon& b) const;

  // The rank of an exporter in rtt_sources_; nullopt when it is not one of them.
  std::optional<std::size_t> RttRank(RttExporter exporter) const;

  const EmissionsType preferred_;
  std::vector<RttExporter> rtt_sources_ = {RttExporter::kCarbonroute};
  placement::PlacementFacts model_;
  // (source zone, target zone) → every carbonroute_zone_rtt_seconds sample of the pair.
  std::map<std::pair<std::string, std::string>, std::vector<absl::Duration>> zone_series_;
};

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_MODEL_BUILDER_H_
