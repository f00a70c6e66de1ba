// File: scheduler-lite/scoring_index.h
//
// Dense integer ids over one PlacementModel, built once per model refresh so
// that scoring a candidate costs one small hash lookup and array reads
// instead of four lookups into the model's string-keyed maps (bench/README.md).
//
//   place id    every name that can be a candidate or an RTT target: the
//               model's node names and every RTT row's targets;
//   location id every grid location named by the model (nodes, regions, carbon);
//   region id   every region named by the model (nodes, region → location map,
//               and RTT rows' sources/targets that are not node names).
//
// RTT rows become dense arrays of milliseconds over place ids (NaN: no entry),
// built on first use per row source, so memory is 8 bytes × places for each
// row that has been used as a latency origin — never for all rows of a full mesh.
//
// Ownership: the index keeps the model it was built from alive (shared_ptr
// constructor) or borrows it (reference constructor: the model must outlive
// the index and not change). Not copyable or movable.
// Thread safety: all const methods may be called concurrently (the lazy row
// arrays are built under std::call_once).
#ifndef CARBONROUTE_SCHEDULER_LITE_SCORING_INDEX_H_
#define CARBONROUTE_SCHEDULER_LITE_SCORING_INDEX_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "scheduler-lite/placement_model.h"

namespace carbonroute::scheduler_lite {

class ScoringIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit ScoringIndex(std::shared_ptr<const PlacementModel> model);
  explicit ScoringIndex(const PlacementModel& model);
  ScoringIndex(const ScoringIndex&) = delete;
  ScoringIndex& operator=(const ScoringIndex&) = delete;

  const PlacementModel& model() const { return model_; }

  // kNone when the name is not in the model.
  uint32_t PlaceId(absl::string_view name) const { return Find(place_ids_, name); }
  uint32_t LocationId(absl::string_view location) const { return Find(location_ids_, location); }
  uint32_t RegionId(absl::string_view region) const { return Find(region_ids_, region); }

  std::size_t location_count() const { return locations_.size(); }
  std::size_t region_count() const { return regions_.size(); }
  absl::string_view location(uint32_t id) const { return locations_[id]; }
  absl::string_view region(uint32_t id) const { return regions_[id]; }

  // What the model says about a place: for a node, its grid location and
  // region ids (kNone when unknown); is_region when the name is a key of the
  // model's region → location map.
  struct Place {
    uint32_t location = kNone;
    uint32_t region = kNone;
    bool is_node = false;
    bool is_region = false;
  };
  const Place& place(uint32_t id) const { return places_[id]; }
  // The grid location of a region (region_locations), kNone when unknown.
  uint32_t RegionLocation(uint32_t region_id) const { return region_locations_[region_id]; }

  // The RTT row whose source is `source`, as milliseconds by place id (NaN:
  // no entry); nullptr when the model has no such row.
  const std::vector<double>* Row(absl::string_view source) const;

 private:
  using IdMap = absl::flat_hash_map<absl::string_view, uint32_t>;
  static uint32_t Find(const IdMap& ids, absl::string_view key) {
    auto it = ids.find(key);
    return it == ids.end() ? kNone : it->second;
  }
  static uint32_t Intern(IdMap& ids, std::vector<absl::string_view>& names, absl::string_view name);
  void Build();

  struct LazyRow {
    const absl::flat_hash_map<std::string, RttEntry>* entries = nullptr;
    mutable std::once_flag once;
    mutable std::vector<double> ms;
  };

  std::shared_ptr<const PlacementModel> owned_;  // null when borrowing
  const PlacementModel& model_;
  IdMap place_ids_, location_ids_, region_ids_;
  std::vector<absl::string_view> place_names_, locations_, regions_;
  std::vector<Place> places_;
  std::vector<uint32_t> region_locations_;  // by region id
  absl::flat_hash_map<absl::string_view, std::unique_ptr<LazyRow>> rows_;
};

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_SCORING_INDEX_H_
