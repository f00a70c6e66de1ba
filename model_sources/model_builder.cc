#include "model_sources/model_builder.h"

#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/median.h"
#include "contract/intensity_series.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"
#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"

namespace carbonroute::model_sources {

using placement::LocationCarbon;
using placement::PlacementFacts;
using placement::PlacementModel;
using placement::RttEntry;
namespace {

namespace label = metric_labels;

// The series a carbon-intensity sample belongs to; nullopt if its
// emissions_type label is neither "average" nor "marginal".
std::optional<IntensitySeries> SeriesOf(const Sample& s) {
  std::optional<EmissionsType> type = ParseEmissionsType(s.Label(label::kEmissionsType));
  if (!type) return std::nullopt;
  return IntensitySeries{s.Label(label::kProvider), s.Label(label::kLocation), *type};
}

}  // namespace

ModelBuilder::ModelBuilder(absl::Time now, EmissionsType preferred) : preferred_(preferred) {
  model_.built_at = now;
}

bool ModelBuilder::Prefer(const LocationCarbon& a, const LocationCarbon& b) const {
  const bool a_preferred = a.emissions_type == preferred_,
             b_preferred = b.emissions_type == preferred_;
  if (a_preferred != b_preferred) return a_preferred;
  const absl::Time a_to = a.valid_to.value_or(absl::InfinitePast()),
                   b_to = b.valid_to.value_or(absl::InfinitePast());
  if (a_to != b_to) return a_to > b_to;
  // Two copies of one series (the carbon role's replicas): the fresher.
  const absl::Duration a_age = a.age.value_or(absl::InfiniteDuration()),
                       b_age = b.age.value_or(absl::InfiniteDuration());
  if (a.provider == b.provider && a_age != b_age) return a_age < b_age;
  return a.provider < b.provider;
}

void ModelBuilder::AddSamples(const std::vector<Sample>& samples) {
  // Per copy of a series: the carbon role's replicas each export every series.
  using Copy = std::pair<IntensitySeries, std::string>;  // the series, its instance
  std::map<Copy, double> valid_to, age;
  std::map<Copy, std::map<std::string, double>> forecast;
  for (const Sample& s : samples) {
    // +Inf RTT: a pair whose probes fail (an --rtt-source adapter says so): no limit holds.
    const bool failing_pair = s.name == metric_names::kRtt && std::isinf(s.value) && s.value > 0;
    if (!std::isfinite(s.value) && !failing_pair) continue;
    if (s.name == metric_names::kCarbonIntensityValidTo) {
      if (std::optional<IntensitySeries> series = SeriesOf(s)) {
        valid_to[{*series, s.Label(label::kInstance)}] = s.value;
      }
    } else if (s.name == metric_names::kCarbonIntensityAge) {
      if (std::optional<IntensitySeries> series = SeriesOf(s)) {
        age[{*series, s.Label(label::kInstance)}] = s.value;
      }
    } else if (s.name == metric_names::kForecastMean) {
      if (std::optional<IntensitySeries> series = SeriesOf(s)) {
        forecast[{*series, s.Label(label::kInstance)}][s.Label(label::kWindow)] = s.value;
      }
    } else if (s.name == metric_names::kNodeInfo) {
      model_.nodes[s.Label(label::kNode)] = {s.Label(label::kLocation), s.Label(label::kRegion),
                                             s.Label(label::kZone)};
    } else if (s.name == metric_names::kZoneRtt && s.value >= 0) {
      zone_series_[{s.Label(label::kSourceZone), s.Label(label::kTargetZone)}].push_back(
          absl::Seconds(s.value));
    } else if (s.name == metric_names::kRtt && s.value >= 0) {
      // No method label (an older collector): a measurement.
      const RttMethod method =
          ParseRttMethod(s.Label(label::kMethod)).value_or(RttMethod::kMeasured);
      const RttExporter exporter =
          ParseRttExporter(s.Label(label::kExporter)).value_or(RttExporter::kCarbonroute);
      const std::optional<std::size_t> rank = RttRank(exporter);
      if (method == RttMethod::kMeasured && !rank) continue;  // a source not chosen
      RttEntry entry{absl::Seconds(s.value), method, model_.built_at, exporter};
      // A collector exports both a probe's measurement and the static
      // matrix's declaration for a peer, in no set order: the measurement
      // wins whichever comes last; of two measurements, the preferred
      // source's (--rtt-source order); otherwise the later sample does.
      auto [it, inserted] =
          model_.rtt[s.Label(label::kSource)].try_emplace(s.Label(label::kTarget), entry);
      if (inserted) continue;
      const bool replaces =
          method == RttMethod::kMeasured
              ? it->second.method != RttMethod::kMeasured ||
                    *rank <= RttRank(it->second.exporter).value_or(rtt_sources_.size())
              : it->second.method != RttMethod::kMeasured;
      if (replaces) it->second = entry;
    }
  }
  for (const Sample& s : samples) {
    if (s.name != metric_names::kCarbonIntensity || !std::isfinite(s.value)) continue;
    const std::optional<IntensitySeries> series = SeriesOf(s);
    if (!series) continue;
    LocationCarbon carbon;
    carbon.provider = series->provider;
    carbon.emissions_type = series->emissions_type;
    carbon.grams_per_kwh = s.value;
    carbon.estimated = s.Label(label::kEstimated) == EstimatedLabel(true);
    carbon.observed_at = model_.built_at;
    const Copy copy{*series, s.Label(label::kInstance)};
    if (auto it = valid_to.find(copy); it != valid_to.end()) {
      carbon.valid_to = absl::FromUnixSeconds(static_cast<int64_t>(it->second));
    }
    if (auto it = age.find(copy); it != age.end()) carbon.age = absl::Seconds(it->second);
    if (auto it = forecast.find(copy); it != forecast.end()) carbon.forecast_mean = it->second;
    const std::string& location = series->location;
    auto [it, inserted] = model_.carbon.emplace(location, carbon);
    if (!inserted && Prefer(carbon, it->second)) it->second = carbon;
  }
}

absl::Status ModelBuilder::AddStaticRttCsv(absl::string_view csv, absl::string_view origin) {
  absl::StatusOr<std::vector<RttMatrixEntry>> entries = ParseRttMatrixCsv(csv, origin);
  if (!entries.ok()) return entries.status();
  for (const RttMatrixEntry& e : *entries) {  // measured rows take precedence
    model_.rtt[e.sending_region].emplace(e.receiving_region,
                                         RttEntry{e.rtt, RttMethod::kDeclared, model_.built_at});
  }
  return absl::OkStatus();
}

absl::Status ModelBuilder::AddRegionLocationsCsv(absl::string_view csv, absl::string_view origin) {
  absl::StatusOr<std::map<std::string, std::string, std::less<>>> rows =
      ParseRegionLocationsCsv(csv, origin);
  if (!rows.ok()) return rows.status();
  for (auto& [region, location] : *rows) {
    if (!location.empty()) model_.region_locations.insert({region, location});
  }
  return absl::OkStatus();
}

std::optional<std::size_t> ModelBuilder::RttRank(RttExporter exporter) const {
  for (std::size_t i = 0; i < rtt_sources_.size(); ++i) {
    if (rtt_sources_[i] == exporter) return i;
  }
  return std::nullopt;
}

std::vector<std::string> ModelBuilder::AddApiNodes(const std::vector<kube::KubeNode>& nodes) {
  std::vector<std::string> mismatches;
  for (const kube::KubeNode& node : nodes) {
    std::string location = node.location;
    if (location.empty()) {
      const auto mapped = model_.region_locations.find(node.region);
      if (mapped != model_.region_locations.end()) location = mapped->second;
    }
    const auto known = model_.nodes.find(node.name);
    if (known == model_.nodes.end()) {
      model_.nodes[node.name] = {location, node.region, node.zone};
      continue;
    }
    placement::NodePlacement& placement = known->second;
    if (!location.empty() && !placement.location.empty() && location != placement.location) {
      mismatches.push_back(
          absl::StrCat("Node ", node.name, ": its collector's carbonroute_node_info says ",
                       placement.location, ", the Node object ",
                       node.location.empty() ? absl::StrCat("(region ", node.region, ") ") : "",
                       location, "; the collector's is used"));
    }
    if (placement.location.empty()) placement.location = location;
    if (placement.region.empty()) placement.region = node.region;
    if (placement.zone.empty()) placement.zone = node.zone;
  }
  return mismatches;
}

std::shared_ptr<const PlacementModel> ModelBuilder::Build() const {
  return std::make_shared<const PlacementModel>(BuildFacts());
}

PlacementFacts ModelBuilder::BuildFacts() const {
  PlacementFacts facts = model_;
  std::map<std::pair<absl::string_view, absl::string_view>, std::vector<absl::Duration>> measured;
  for (const auto& [source, row] : facts.rtt) {
    const absl::string_view source_zone = facts.ZoneOf(source);
    if (source_zone.empty()) continue;
    for (const auto& [target, entry] : row) {
      const absl::string_view target_zone = facts.ZoneOf(target);
      if (entry.method != RttMethod::kMeasured || target_zone.empty()) continue;
      measured[{source_zone, target_zone}].push_back(entry.rtt);
    }
  }
  for (auto& [zones, rtts] : measured) {
    facts.zone_rtt[zones.first][zones.second] = Median(rtts);
  }
  for (auto [zones, rtts] : zone_series_) {  // a copy: Median reorders
    facts.zone_rtt[zones.first].try_emplace(zones.second, Median(rtts));
  }
  return facts;
}

}  // namespace carbonroute::model_sources
