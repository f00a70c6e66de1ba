#include "placement/placement_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace carbonroute::placement {
namespace {

uint64_t ZonePair(uint32_t from, uint32_t to) { return (uint64_t{from} << 32) | to; }

}  // namespace

uint32_t PlacementModel::Intern(IdMap& ids, std::vector<absl::string_view>& names,
                                absl::string_view name) {
  if (auto it = ids.find(name); it != ids.end()) return it->second;
  const absl::string_view owned = strings_.emplace_back(name);
  const auto id = static_cast<uint32_t>(names.size());
  ids.emplace(owned, id);
  names.push_back(owned);
  return id;
}

PlacementModel::PlacementModel(const PlacementFacts& facts) : built_at_(facts.built_at) {
  for (const auto& [location, carbon] : facts.carbon) Intern(location_ids_, locations_, location);
  for (const auto& [name, node] : facts.nodes) {
    const uint32_t id = Intern(place_ids_, place_names_, name);
    places_.resize(place_names_.size());
    Place& place = places_[id];
    place.is_node = true;
    if (!node.location.empty()) place.location = Intern(location_ids_, locations_, node.location);
    if (!node.region.empty()) place.region = Intern(region_ids_, regions_, node.region);
    if (!node.zone.empty()) place.zone = Intern(zone_ids_, zones_, node.zone);
  }
  node_count_ = facts.nodes.size();
  for (const auto& [region, location] : facts.region_locations) {
    const uint32_t region_id = Intern(region_ids_, regions_, region);
    const uint32_t location_id = Intern(location_ids_, locations_, location);
    region_locations_.resize(regions_.size(), kNone);
    region_locations_[region_id] = location_id;
    const uint32_t place_id = Intern(place_ids_, place_names_, region);
    places_.resize(place_names_.size());
    places_[place_id].is_region = true;
  }
  for (const auto& [source, row] : facts.rtt) {
    if (!facts.nodes.contains(source)) Intern(region_ids_, regions_, source);
    const uint32_t row_id = Intern(row_ids_, row_names_, source);
    rows_.resize(row_id + 1);
    rows_[row_id] = std::make_unique<Row>();
    for (const auto& [target, entry] : row) {
      const uint32_t target_id = Intern(place_ids_, place_names_, target);
      if (!facts.nodes.contains(target)) Intern(region_ids_, regions_, target);
      rows_[row_id]->entries.push_back({target_id, entry});
    }
    std::sort(rows_[row_id]->entries.begin(), rows_[row_id]->entries.end(),
              [](const RowEntry& a, const RowEntry& b) { return a.target < b.target; });
  }
  for (const auto& [from, row] : facts.zone_rtt) {
    const uint32_t from_id = Intern(zone_ids_, zones_, from);
    for (const auto& [to, rtt] : row) {
      zone_rtt_[ZonePair(from_id, Intern(zone_ids_, zones_, to))] = rtt;
    }
  }
  places_.resize(place_names_.size());
  region_locations_.resize(regions_.size(), kNone);
  carbon_.resize(locations_.size());
  has_carbon_.assign(locations_.size(), false);
  for (const auto& [location, carbon] : facts.carbon) {
    const uint32_t id = LocationId(location);
    carbon_[id] = carbon;
    has_carbon_[id] = true;
  }
}

const PlacementModel::DenseRow& PlacementModel::Dense(uint32_t row_id) const {
  const Row& row = *rows_[row_id];
  std::call_once(row.once, [&] {
    row.dense.ms.assign(place_names_.size(), std::numeric_limits<double>::quiet_NaN());
    row.dense.method.assign(place_names_.size(), RttMethod::kMeasured);
    for (const RowEntry& e : row.entries) {
      row.dense.ms[e.target] = absl::ToDoubleMilliseconds(e.entry.rtt);
      row.dense.method[e.target] = e.entry.method;
    }
  });
  return row.dense;
}

const RttEntry* PlacementModel::FindEntry(uint32_t row, uint32_t target) const {
  const std::vector<RowEntry>& entries = rows_[row]->entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), target,
                             [](const RowEntry& e, uint32_t t) { return e.target < t; });
  return it != entries.end() && it->target == target ? &it->entry : nullptr;
}

std::optional<absl::Duration> PlacementModel::ZonePairRtt(uint32_t from_zone,
                                                          uint32_t to_zone) const {
  auto it = zone_rtt_.find(ZonePair(from_zone, to_zone));
  if (it == zone_rtt_.end()) return std::nullopt;
  return it->second;
}

std::vector<PlacementModel::NodeView> PlacementModel::Nodes() const {
  std::vector<NodeView> nodes;
  for (uint32_t id = 0; id < places_.size(); ++id) {
    const Place& p = places_[id];
    if (!p.is_node) continue;
    nodes.push_back({place_names_[id], p.location == kNone ? "" : locations_[p.location],
                     p.region == kNone ? "" : regions_[p.region]});
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeView& a, const NodeView& b) { return a.name < b.name; });
  return nodes;
}

std::vector<std::pair<absl::string_view, absl::string_view>> PlacementModel::RegionLocations()
    const {
  std::vector<std::pair<absl::string_view, absl::string_view>> out;
  for (uint32_t id = 0; id < regions_.size(); ++id) {
    if (region_locations_[id] != kNone)
      out.emplace_back(regions_[id], locations_[region_locations_[id]]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<absl::string_view, const LocationCarbon*>> PlacementModel::Readings() const {
  std::vector<std::pair<absl::string_view, const LocationCarbon*>> out;
  for (uint32_t id = 0; id < locations_.size(); ++id) {
    if (has_carbon_[id]) out.emplace_back(locations_[id], &carbon_[id]);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

PlacementModel::LocationMembers PlacementModel::MembersOf(uint32_t location_id) const {
  LocationMembers members;
  for (uint32_t region = 0; region < regions_.size(); ++region) {
    if (region_locations_[region] == location_id) members.regions.emplace_back(regions_[region]);
  }
  for (uint32_t id = 0; id < places_.size(); ++id) {
    if (places_[id].is_node && places_[id].location == location_id) {
      members.nodes.emplace_back(place_names_[id]);
    }
  }
  std::sort(members.regions.begin(), members.regions.end());
  std::sort(members.nodes.begin(), members.nodes.end());
  return members;
}

}  // namespace carbonroute::placement
