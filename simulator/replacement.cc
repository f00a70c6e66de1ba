#include "simulator/replacement.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "placement/move_payback.h"
#include "simulator/zone_groups.h"

namespace carbonroute::simulator {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kWatts = 1;  // P: every figure is relative to it

absl::Status CheckList(const std::vector<double>& values, const char* field) {
  if (values.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": empty"));
  for (double value : values) {
    if (!std::isfinite(value) || value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", value, " is not a finite number ≥ 0"));
    }
  }
  return absl::OkStatus();
}

// Per origin, per hour: the cleanest site within `max_rtt_ms` (itself first on ties).
std::vector<std::vector<uint16_t>> BestSites(const SiteTopology& topology,
                                             const std::vector<std::vector<double>>& intensity,
                                             double max_rtt_ms) {
  const std::size_t n = topology.size(), hours = intensity.empty() ? 0 : intensity[0].size();
  std::vector<std::vector<uint16_t>> best(n, std::vector<uint16_t>(hours));
  for (std::size_t o = 0; o < n; ++o) {
    std::vector<std::size_t> reachable = {o};
    for (std::size_t s = 0; s < n; ++s) {
      if (s != o && topology.RttMs(o, s) <= max_rtt_ms) reachable.push_back(s);
    }
    for (std::size_t h = 0; h < hours; ++h) {
      std::size_t chosen = o;
      for (std::size_t s : reachable) {
        if (intensity[s][h] < intensity[chosen][h]) chosen = s;
      }
      best[o][h] = static_cast<uint16_t>(chosen);
    }
  }
  return best;
}

struct Tally {
  std::size_t services = 0;
  double hours = 0, local = 0, bind = 0, rebalance = 0, moves = 0;  // grams at P = 1 W
};

}  // namespace

absl::StatusOr<std::vector<ReplacementRow>> SimulateReplacement(
    const SiteTopology& topology, const IntensityTrace& trace,
    const std::map<std::string, std::set<std::string>>& zone_groups,
    const ReplacementOptions& options) {
  if (absl::Status s = CheckList(options.max_rtt_ms, "max_rtt_ms"); !s.ok()) return s;
  if (absl::Status s = CheckList(options.tolerances, "tolerances"); !s.ok()) return s;
  if (absl::Status s = CheckList(options.restart_minutes, "restart_minutes"); !s.ok()) return s;
  if (options.lifetime_hours < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("lifetime_hours: ", options.lifetime_hours, " is under an hour"));
  }
  if (topology.size() > UINT16_MAX) return absl::InvalidArgumentError("too many sites");
  const std::size_t n = topology.size(), hours = trace.hours();
  std::vector<std::vector<double>> intensity(n, std::vector<double>(hours));
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t h = 0; h < hours; ++h) {
      intensity[s][h] = trace.Value(topology.sites[s].trace_column, h).value_or(NAN);
    }
  }
  const int64_t min_stay_hours =
      std::max<int64_t>(0, absl::ToInt64Hours(absl::Ceil(options.min_stay, absl::Hours(1))));
  const double hour_kwh = kWatts * 3600 / kJoulesPerKwh;
  // Per limit, per origin, per hour: the cleanest site within the limit (every group's).
  std::vector<std::vector<std::vector<uint16_t>>> best_by_limit;
  for (double limit : options.max_rtt_ms) {
    best_by_limit.push_back(BestSites(topology, intensity, limit));
  }
  std::vector<ReplacementRow> rows;
  for (const std::string& group : options.groups) {
    std::vector<std::size_t> origins;
    const auto members = zone_groups.find(group);
    for (std::size_t s = 0; s < n; ++s) {
      if (group == kGlobalGroup ||
          (members != zone_groups.end() && members->second.contains(topology.sites[s].zone))) {
        origins.push_back(s);
      }
    }
    if (origins.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("group ", group, ": none of its zones is a site of the topology"));
    }
    for (std::size_t l = 0; l < options.max_rtt_ms.size(); ++l) {
      const double limit = options.max_rtt_ms[l];
      const std::vector<std::vector<uint16_t>>& best = best_by_limit[l];
      for (double tolerance : options.tolerances) {
        for (double minutes : options.restart_minutes) {
          const placement::MoveTerms terms{.watts = kWatts,
                                           .restart_joules = kWatts * minutes * 60,
                                           .horizon = options.horizon,
                                           .tolerance = tolerance};
          Tally tally;
          for (std::size_t o : origins) {
            for (std::size_t day = 0; day * 24 < hours; ++day) {
              const std::size_t arrival = day * 24 + day % 24;
              if (arrival >= hours) break;
              const std::size_t end =
                  std::min(hours, arrival + static_cast<std::size_t>(options.lifetime_hours));
              ++tally.services;
              const std::size_t bound = best[o][arrival];
              std::size_t at = bound;
              std::size_t on_since = arrival;
              // The site that beats `at` by more than the tolerance, and since when (none: n).
              std::size_t gap_to = n, gap_since = 0;
              for (std::size_t h = arrival; h < end; ++h) {
                if (h > arrival) {
                  const std::size_t to = best[o][h];
                  const double now_gap = intensity[at][h] - intensity[to][h];
                  if (to == at || now_gap <= tolerance) {
                    gap_to = n;
                  } else {
                    if (gap_to != to) {
                      gap_to = to;
                      gap_since = h;
                    }
                    const bool stayed = static_cast<int64_t>(h - gap_since) >= min_stay_hours &&
                                        static_cast<int64_t>(h - on_since) >= min_stay_hours;
                    if (stayed && placement::PriceMove({.grams_per_kwh = intensity[at][h]},
                                                       {.grams_per_kwh = intensity[to][h]}, terms)
                                      .pays(tolerance)) {
                      tally.rebalance += terms.restart_joules / kJoulesPerKwh * intensity[to][h];
                      tally.moves += 1;
                      at = to;
                      on_since = h;
                      gap_to = n;
                    }
                  }
                }
                tally.hours += 1;
                tally.local += hour_kwh * intensity[o][h];
                tally.bind += hour_kwh * intensity[bound][h];
                tally.rebalance += hour_kwh * intensity[at][h];
              }
            }
          }
          const double kwh = tally.hours * hour_kwh;
          ReplacementRow row{.group = group,
                             .max_rtt_ms = limit,
                             .tolerance = tolerance,
                             .restart_minutes = minutes,
                             .services = tally.services,
                             .workload_days = tally.hours / 24,
                             .local_mean = tally.local / kwh,
                             .bind_mean = tally.bind / kwh,
                             .rebalance_mean = tally.rebalance / kwh};
          row.extra_saving_percent =
              tally.bind > 0 ? 100 * (tally.bind - tally.rebalance) / tally.bind : 0;
          row.moves_per_workload_day = row.workload_days > 0 ? tally.moves / row.workload_days : 0;
          rows.push_back(row);
        }
      }
    }
  }
  return rows;
}

}  // namespace carbonroute::simulator
