// File: scheduler-lite/placement_model.h
//
// What scheduler-lite knows, as one immutable snapshot: carbon intensity per
// grid location, which node or region draws from which location, and the RTT
// matrix rows the collectors export. Built by ModelBuilder (model_builder.h)
// from collectors' /metrics, a Prometheus server and a static RTT matrix;
// read by scoring (scoring.h). Every value records when it was observed, so
// the stale-data policy can be applied at scoring time.
//
// Units: intensities in gCO2eq/kWh, RTTs as absl::Duration.
// Thread safety: immutable once built; share through std::shared_ptr<const PlacementModel>.
#ifndef CARBONROUTE_SCHEDULER_LITE_PLACEMENT_MODEL_H_
#define CARBONROUTE_SCHEDULER_LITE_PLACEMENT_MODEL_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/time/time.h"

namespace carbonroute::scheduler_lite {

struct LocationCarbon {
  std::string provider;
  std::string emissions_type;  // "average" or "marginal"
  double grams_per_kwh = 0;
  bool estimated = false;
  std::optional<absl::Time> valid_to;            // end of the reading's validity
  std::map<std::string, double> forecast_mean;  // window ("1h", "4h", "24h") → gCO2eq/kWh
  absl::Time observed_at;                       // when scheduler-lite read it
};

struct NodePlacement {
  std::string location;  // grid location ("" if unknown)
  std::string region;    // cloud region ("" if unknown)
};

struct RttEntry {
  absl::Duration rtt;
  std::string method;  // "measured" (probes) or "declared" (static matrix)
  absl::Time observed_at;
};

struct PlacementModel {
  absl::Time built_at;
  std::map<std::string, LocationCarbon> carbon;   // by location
  std::map<std::string, NodePlacement> nodes;     // by node name
  std::map<std::string, std::string> region_locations;  // region → grid location
  // (source, target) → RTT. Keys are node names (collector rows) or regions (static matrix).
  std::map<std::pair<std::string, std::string>, RttEntry> rtt;
};

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_PLACEMENT_MODEL_H_
