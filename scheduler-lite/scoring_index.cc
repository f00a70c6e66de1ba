#include "scheduler-lite/scoring_index.h"

#include <cmath>
#include <limits>

namespace carbonroute::scheduler_lite {

ScoringIndex::ScoringIndex(std::shared_ptr<const PlacementModel> model)
    : owned_(std::move(model)), model_(*owned_) {
  Build();
}

ScoringIndex::ScoringIndex(const PlacementModel& model) : model_(model) { Build(); }

uint32_t ScoringIndex::Intern(IdMap& ids, std::vector<absl::string_view>& names,
                              absl::string_view name) {
  auto [it, inserted] = ids.try_emplace(name, static_cast<uint32_t>(names.size()));
  if (inserted) names.push_back(name);
  return it->second;
}

void ScoringIndex::Build() {
  for (const auto& [location, carbon] : model_.carbon) Intern(location_ids_, locations_, location);
  for (const auto& [name, node] : model_.nodes) {
    const uint32_t id = Intern(place_ids_, place_names_, name);
    places_.resize(place_names_.size());
    places_[id].is_node = true;
    if (!node.location.empty())
      places_[id].location = Intern(location_ids_, locations_, node.location);
    if (!node.region.empty()) places_[id].region = Intern(region_ids_, regions_, node.region);
  }
  for (const auto& [region, location] : model_.region_locations) {
    const uint32_t region_id = Intern(region_ids_, regions_, region);
    const uint32_t location_id = Intern(location_ids_, locations_, location);
    region_locations_.resize(regions_.size(), kNone);
    region_locations_[region_id] = location_id;
    const uint32_t place_id = Intern(place_ids_, place_names_, region);
    places_.resize(place_names_.size());
    places_[place_id].is_region = true;
  }
  for (const auto& [source, row] : model_.rtt) {
    if (!model_.nodes.contains(source)) Intern(region_ids_, regions_, source);
    for (const auto& [target, entry] : row) {
      Intern(place_ids_, place_names_, target);
      if (!model_.nodes.contains(target)) Intern(region_ids_, regions_, target);
    }
    auto lazy = std::make_unique<LazyRow>();
    lazy->entries = &row;
    rows_.emplace(source, std::move(lazy));
  }
  places_.resize(place_names_.size());
  region_locations_.resize(regions_.size(), kNone);
}

const std::vector<double>* ScoringIndex::Row(absl::string_view source) const {
  auto it = rows_.find(source);
  if (it == rows_.end()) return nullptr;
  const LazyRow& row = *it->second;
  std::call_once(row.once, [&] {
    row.ms.assign(place_names_.size(), std::numeric_limits<double>::quiet_NaN());
    for (const auto& [target, entry] : *row.entries) {
      row.ms[PlaceId(target)] = absl::ToDoubleMilliseconds(entry.rtt);
    }
  });
  return &row.ms;
}

}  // namespace carbonroute::scheduler_lite
