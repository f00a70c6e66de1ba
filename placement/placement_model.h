// File: placement/placement_model.h
//
// The one model scheduler-lite scores on: what the collectors and the static
// files say (PlacementFacts), compiled once into dense integer ids so that
// scoring a candidate costs one small hash lookup and array reads
// (bench/README.md). The extender builds one per refresh; the simulator
// builds one and writes each hour's carbon values into it in place.
//
//   place id    every name that can be a candidate or an RTT target: node
//               names, every RTT row's targets, every region of the
//               region → location map;
//   location id every grid location named (nodes, regions, carbon readings);
//   region id   every region named (nodes, the region → location map, and RTT
//               rows' sources/targets that are not node names);
//   zone id     every cloud zone of a node or of a zone-pair RTT;
//   row id      every RTT row (by its source's name: a node or a region).
//
// RTT rows are kept as entries and, on first use per row, as a dense array of
// milliseconds over place ids (NaN: no entry): memory is 8 bytes × places
// for each row that has served as a latency origin — never for a whole mesh.
// The lookup rules over these (and their provenance) are scoring.h's.
//
// Units: intensities in gCO2eq/kWh, RTTs as absl::Duration or milliseconds.
// Ownership: owns every name and value (copied from the facts).
// Thread safety: const methods may be called concurrently (lazy rows are
// built under std::call_once); MutableCarbon() must not be called while
// another thread reads (the simulator's model is its own).
#ifndef CARBONROUTE_PLACEMENT_PLACEMENT_MODEL_H_
#define CARBONROUTE_PLACEMENT_PLACEMENT_MODEL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "placement/placement_facts.h"

namespace carbonroute::placement {

class PlacementModel {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit PlacementModel(const PlacementFacts& facts);
  PlacementModel(const PlacementModel&) = delete;
  PlacementModel& operator=(const PlacementModel&) = delete;

  absl::Time built_at() const { return built_at_; }

  // Ids; kNone when the name is not in the model.
  uint32_t PlaceId(absl::string_view name) const { return Find(place_ids_, name); }
  uint32_t LocationId(absl::string_view location) const { return Find(location_ids_, location); }
  uint32_t RegionId(absl::string_view region) const { return Find(region_ids_, region); }
  uint32_t RowId(absl::string_view source) const { return Find(row_ids_, source); }

  std::size_t location_count() const { return locations_.size(); }
  std::size_t region_count() const { return regions_.size(); }
  absl::string_view place_name(uint32_t id) const { return place_names_[id]; }
  absl::string_view location(uint32_t id) const { return locations_[id]; }
  absl::string_view region(uint32_t id) const { return regions_[id]; }
  absl::string_view zone(uint32_t id) const { return zones_[id]; }

  // What the model says about a place: for a node, its location, region and
  // zone ids (kNone when unknown); is_region when it is a region of the
  // region → location map.
  struct Place {
    uint32_t location = kNone;
    uint32_t region = kNone;
    uint32_t zone = kNone;
    bool is_node = false;
    bool is_region = false;
  };
  const Place& place(uint32_t id) const { return places_[id]; }
  // The grid location of a region (region → location map), kNone when unknown.
  uint32_t RegionLocation(uint32_t region_id) const { return region_locations_[region_id]; }
  // What a grid location stands for: the regions the region → location map
  // sends to it and the nodes in it, each sorted by name.
  struct LocationMembers {
    std::vector<std::string> regions, nodes;
  };
  LocationMembers MembersOf(uint32_t location_id) const;

  // The carbon reading of a location; nullptr when there is none.
  const LocationCarbon* Carbon(uint32_t location_id) const {
    return has_carbon_[location_id] ? &carbon_[location_id] : nullptr;
  }
  // For in-place updates of an existing reading (the simulator, hour by
  // hour); nullptr when the location had no reading in the facts.
  LocationCarbon* MutableCarbon(uint32_t location_id) {
    return has_carbon_[location_id] ? &carbon_[location_id] : nullptr;
  }

  // An RTT row: its entries by target place id, and the same as a dense
  // array of milliseconds by place id (NaN: no entry), built on first use.
  struct RowEntry {
    uint32_t target;  // place id
    RttEntry entry;
  };
  struct DenseRow {
    std::vector<double> ms;         // NaN: no entry
    std::vector<RttMethod> method;  // valid where ms is not NaN
  };
  const std::vector<RowEntry>& RowEntries(uint32_t row) const { return rows_[row]->entries; }
  const DenseRow& Dense(uint32_t row) const;
  // The entry of `row` for `target`, or nullptr.
  const RttEntry* FindEntry(uint32_t row, uint32_t target) const;

  // The zone pair's RTT (PlacementFacts::zone_rtt), if known.
  std::optional<absl::Duration> ZonePairRtt(uint32_t from_zone, uint32_t to_zone) const;

  // Listings for the CLI, ascending by name.
  struct NodeView {
    absl::string_view name, location, region;
  };
  std::vector<NodeView> Nodes() const;
  std::vector<std::pair<absl::string_view, absl::string_view>> RegionLocations() const;
  std::vector<std::pair<absl::string_view, const LocationCarbon*>> Readings() const;
  std::size_t node_count() const { return node_count_; }
  std::size_t row_count() const { return rows_.size(); }
  // The source of RTT row `row` (a node or a region).
  absl::string_view row_name(uint32_t row) const { return row_names_[row]; }

 private:
  using IdMap = absl::flat_hash_map<absl::string_view, uint32_t>;
  static uint32_t Find(const IdMap& ids, absl::string_view key) {
    auto it = ids.find(key);
    return it == ids.end() ? kNone : it->second;
  }
  // The id of `name` in `ids`, adding it (a copy owned by the model) if new.
  uint32_t Intern(IdMap& ids, std::vector<absl::string_view>& names, absl::string_view name);

  struct Row {
    std::vector<RowEntry> entries;
    mutable std::once_flag once;
    mutable DenseRow dense;
  };

  absl::Time built_at_;
  std::deque<std::string> strings_;  // every name, at stable addresses
  IdMap place_ids_, location_ids_, region_ids_, zone_ids_, row_ids_;
  std::vector<absl::string_view> place_names_, locations_, regions_, zones_, row_names_;
  std::vector<Place> places_;
  std::vector<uint32_t> region_locations_;  // by region id
  std::vector<LocationCarbon> carbon_;      // by location id
  std::vector<bool> has_carbon_;
  std::vector<std::unique_ptr<Row>> rows_;                  // by row id
  absl::flat_hash_map<uint64_t, absl::Duration> zone_rtt_;  // (from zone id << 32 | to zone id)
  std::size_t node_count_ = 0;
};

}  // namespace carbonroute::placement

#endif  // CARBONROUTE_PLACEMENT_PLACEMENT_MODEL_H_
