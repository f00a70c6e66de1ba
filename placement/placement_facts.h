// File: placement/placement_facts.h
//
// What the sources said, by name, before it is compiled into the one model
// scoring reads (PlacementModel, placement_model.h): carbon intensity per grid
// location, which node or region draws from which location, the RTT rows the
// collectors export and the static matrix. ModelBuilder (model_builder.h)
// collects these from collectors' /metrics, a Prometheus server and the
// files; tests write them by hand. Nothing scores on this form.
//
// Units: intensities in gCO2eq/kWh, RTTs as absl::Duration.
// Thread safety: a plain value.
#ifndef CARBONROUTE_PLACEMENT_PLACEMENT_FACTS_H_
#define CARBONROUTE_PLACEMENT_PLACEMENT_FACTS_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/emissions_type.h"
#include "contract/metric_labels.h"
#include "contract/rtt_exporter.h"

namespace carbonroute::placement {

struct LocationCarbon {
  std::string provider;
  EmissionsType emissions_type = EmissionsType::kAverage;
  double grams_per_kwh = 0;
  bool estimated = false;
  std::optional<absl::Time> valid_to;           // end of the reading's validity
  std::optional<absl::Duration> age;            // since the collector fetched it
  std::map<std::string, double> forecast_mean;  // window ("1h", "4h", "24h") → gCO2eq/kWh
  absl::Time observed_at;                       // when scheduler-lite read it
};

struct NodePlacement {
  std::string location;   // grid location ("" if unknown)
  std::string region;     // cloud region ("" if unknown)
  std::string zone = "";  // cloud zone ("" if unknown)
};

struct RttEntry {
  absl::Duration rtt;
  RttMethod method = RttMethod::kMeasured;
  absl::Time observed_at;
  // Who measured it (contract/rtt_exporter.h): named in reasons when not
  // carbonroute's own prober.
  RttExporter exporter = RttExporter::kCarbonroute;
};

struct PlacementFacts {
  absl::Time built_at;
  absl::flat_hash_map<std::string, LocationCarbon> carbon;           // by location
  absl::flat_hash_map<std::string, NodePlacement> nodes;             // by node name
  std::map<std::string, std::string, std::less<>> region_locations;  // region → grid location
  // source → target → RTT. Names are node names (collector rows) or regions (static matrix).
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, RttEntry>> rtt;
  // source zone → target zone → RTT: the median of the measured entries
  // between nodes of the two zones (node zones from carbonroute_node_info),
  // else the median of the collectors' carbonroute_zone_rtt_seconds for the
  // pair. Filled by ModelBuilder; for a sampled probe mesh, where a node's
  // row covers only a few peers of each zone.
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, absl::Duration>> zone_rtt;

  // The zone of a node; "" if unknown.
  absl::string_view ZoneOf(absl::string_view node) const {
    auto it = nodes.find(node);
    return it == nodes.end() ? absl::string_view() : absl::string_view(it->second.zone);
  }
};

}  // namespace carbonroute::placement

#endif  // CARBONROUTE_PLACEMENT_PLACEMENT_FACTS_H_
