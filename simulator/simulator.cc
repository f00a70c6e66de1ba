#include "simulator/simulator.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "base/status_macros.h"
#include "contract/forecast_windows.h"
#include "simulator/carbonroute_placer.h"
#include "simulator/oracle_placer.h"
#include "simulator/site_placement.h"

namespace carbonroute::simulator {
namespace {

constexpr std::size_t kPolicies = std::size(kSimulatedPolicies);
constexpr std::size_t kHoursPerDay = 24;

// Each site's trace column as prefix sums, for O(1) means over any hours.
class TraceMeans {
 public:
  // `forecast`: with noisy:P, each site's ForecastSeries is kept too.
  TraceMeans(const SiteTopology& topology, const IntensityTrace& trace,
             const SimulatedForecast& forecast)
      : hours_(trace.hours()), prefix_(topology.size()) {
    const bool noisy = forecast.kind == SimulatedForecast::Kind::kNoisy;
    if (noisy) noisy_prefix_.resize(topology.size());
    std::vector<double> hourly(hours_);
    for (std::size_t s = 0; s < topology.size(); ++s) {
      const std::size_t column = topology.sites[s].trace_column;
      for (std::size_t h = 0; h < hours_; ++h) hourly[h] = *trace.Value(column, h);
      prefix_[s] = PrefixSums(hourly);
      whole_trace_.push_back(prefix_[s][hours_] / static_cast<double>(hours_));
      if (noisy) {
        SimulatedForecast zone_forecast = forecast;
        zone_forecast.seed += column;  // as --shift time: each zone its own errors
        noisy_prefix_[s] = PrefixSums(ForecastSeries(hourly, zone_forecast));
      }
    }
  }
  std::size_t hours() const { return hours_; }
  // Each site's mean over the whole trace (the static policy's input).
  const std::vector<double>& whole_trace() const { return whole_trace_; }
  // Mean over hours [begin, end), end clipped to the trace. REQUIRES: begin < hours().
  double Mean(std::size_t site, std::size_t begin, std::size_t end) const {
    return MeanOf(prefix_[site], begin, end);
  }
  // The same over the noisy forecast. REQUIRES: constructed with noisy:P.
  double NoisyMean(std::size_t site, std::size_t begin, std::size_t end) const {
    return MeanOf(noisy_prefix_[site], begin, end);
  }

 private:
  static std::vector<double> PrefixSums(const std::vector<double>& values) {
    std::vector<double> sums(values.size() + 1, 0.0);
    for (std::size_t h = 0; h < values.size(); ++h) sums[h + 1] = sums[h] + values[h];
    return sums;
  }
  double MeanOf(const std::vector<double>& sums, std::size_t begin, std::size_t end) const {
    end = std::min(end, hours_);
    return (sums[end] - sums[begin]) / static_cast<double>(end - begin);
  }

  std::size_t hours_;
  std::vector<std::vector<double>> prefix_, noisy_prefix_;
  std::vector<double> whole_trace_;
};

// What the collectors would export at hour `begin` (carbonroute_placer.h).
void FillSignals(const TraceMeans& means, std::size_t begin, const SimulatedForecast& forecast,
                 std::vector<SiteSignal>& signals) {
  for (std::size_t s = 0; s < signals.size(); ++s) {
    SiteSignal& signal = signals[s];
    signal.current = means.Mean(s, begin, begin + 1);
    for (std::size_t w = 0; w < std::size(kForecastWindows); ++w) {
      const auto hours = static_cast<std::size_t>(absl::ToInt64Hours(kForecastWindows[w].length));
      if (forecast.kind == SimulatedForecast::Kind::kPerfect) {
        signal.forecast_mean[w] = means.Mean(s, begin, begin + hours);
      } else if (forecast.kind == SimulatedForecast::Kind::kNoisy) {
        signal.forecast_mean[w] = means.NoisyMean(s, begin, begin + hours);
      } else if (begin >= kHoursPerDay) {
        signal.forecast_mean[w] = means.Mean(s, begin - kHoursPerDay, begin - kHoursPerDay + hours);
      } else {
        signal.forecast_mean[w].reset();
      }
    }
  }
}

// Periods of `runtime_hours` over the trace; the last may be shorter.
std::size_t PeriodCount(std::size_t hours, int runtime_hours) {
  const auto runtime = static_cast<std::size_t>(std::max(runtime_hours, 1));
  return (hours + runtime - 1) / runtime;
}

bool Wants(const SimulationOptions& options, SimulatedPolicy policy) {
  return std::find(options.policies.begin(), options.policies.end(), policy) !=
         options.policies.end();
}

struct ConfigResult {
  absl::Status status;
  double hour_cost[kPolicies] = {};  // Σ periods: hours × OriginsCost
  double hour_rtt[kPolicies] = {};   // Σ periods: hours × OriginsRttMs
  double origin_units = 0;
  std::size_t placements_checked = 0;
  double worst_oracle_excess = -1;
};

ConfigResult RunConfig(const SiteTopology& topology, const IntensityTrace& trace,
                       const TraceMeans& means, const SimulationOptions& options,
                       const std::vector<bool>& origin, double max_rtt_ms, int idle_percent) {
  ConfigResult result;
  const std::size_t n = topology.size();
  const PlacementLimits limits = MakePlacementLimits(topology, max_rtt_ms, idle_percent, origin);
  for (std::size_t s = 0; s < n; ++s) result.origin_units += origin[s] ? limits.load[s] : 0;

  const Placement local = LocalPlacement(limits);
  const Placement fixed = StaticPlacement(limits, means.whole_trace());
  for (const Placement* placement : {&local, &fixed}) {
    result.status = CheckPlacement(limits, *placement);
    if (!result.status.ok()) return result;
    ++result.placements_checked;
  }
  const bool carbonroute = Wants(options, SimulatedPolicy::kCarbonroute);
  OraclePlacer oracle(limits);
  std::optional<CarbonroutePlacer> placer;
  if (carbonroute) {
    placer.emplace(limits, absl::Hours(options.runtime_hours),
                   CarbonrouteScoring{options.carbon_weight, options.latency_weight,
                                      options.carbon_tolerance, options.capacity_prices});
  }

  const auto runtime = static_cast<std::size_t>(options.runtime_hours);
  const absl::Time start =
      absl::FromCivil(absl::CivilHour(trace.year(), 1, 1, 0), absl::UTCTimeZone());
  std::vector<double> truth(n);
  std::vector<SiteSignal> signals(n);
  for (std::size_t begin = 0; begin < means.hours(); begin += runtime) {
    const std::size_t end = std::min(begin + runtime, means.hours());
    const auto hours = static_cast<double>(end - begin);
    for (std::size_t s = 0; s < n; ++s) truth[s] = means.Mean(s, begin, end);
    double cost[kPolicies];
    double rtt[kPolicies] = {};
    cost[static_cast<int>(SimulatedPolicy::kLocal)] = OriginsCost(limits, local, truth);
    cost[static_cast<int>(SimulatedPolicy::kStatic)] = OriginsCost(limits, fixed, truth);
    rtt[static_cast<int>(SimulatedPolicy::kLocal)] = OriginsRttMs(limits, local);
    rtt[static_cast<int>(SimulatedPolicy::kStatic)] = OriginsRttMs(limits, fixed);
    absl::StatusOr<Placement> best = oracle.Place(truth);
    if (!best.ok()) {
      result.status = best.status();
      return result;
    }
    std::vector<const Placement*> checked = {&*best};
    cost[static_cast<int>(SimulatedPolicy::kOracle)] = OriginsCost(limits, *best, truth);
    rtt[static_cast<int>(SimulatedPolicy::kOracle)] = OriginsRttMs(limits, *best);
    Placement chosen;
    if (carbonroute) {
      FillSignals(means, begin, options.forecast, signals);
      absl::StatusOr<Placement> placed =
          placer->Place(signals, start + absl::Hours(static_cast<int64_t>(begin)));
      if (!placed.ok()) {
        result.status = placed.status();
        return result;
      }
      chosen = *std::move(placed);
      checked.push_back(&chosen);
      cost[static_cast<int>(SimulatedPolicy::kCarbonroute)] = OriginsCost(limits, chosen, truth);
      rtt[static_cast<int>(SimulatedPolicy::kCarbonroute)] = OriginsRttMs(limits, chosen);
    } else {
      cost[static_cast<int>(SimulatedPolicy::kCarbonroute)] = 0;
    }
    for (const Placement* placement : checked) {
      result.status = CheckPlacement(limits, *placement);
      if (!result.status.ok()) {
        result.status =
            absl::InternalError(absl::StrCat("hour ", begin, ", limit ", max_rtt_ms, " ms, idle ",
                                             idle_percent, "%: ", result.status.message()));
        return result;
      }
      ++result.placements_checked;
    }
    const double oracle_cost = cost[static_cast<int>(SimulatedPolicy::kOracle)];
    for (SimulatedPolicy policy : kSimulatedPolicies) {
      if (policy == SimulatedPolicy::kOracle) continue;
      if (policy == SimulatedPolicy::kCarbonroute && !carbonroute) continue;
      const double other = cost[static_cast<int>(policy)];
      if (other > 0) {
        result.worst_oracle_excess =
            std::max(result.worst_oracle_excess, (oracle_cost - other) / other);
      }
    }
    for (std::size_t p = 0; p < kPolicies; ++p) {
      result.hour_cost[p] += hours * cost[p];
      result.hour_rtt[p] += hours * rtt[p];
    }
    if (options.progress != nullptr) options.progress->fetch_add(1, std::memory_order_relaxed);
  }
  return result;
}

absl::Status Validate(const SiteTopology& topology, const SimulationOptions& options,
                      std::size_t hours) {
  for (double limit : options.max_rtt_ms) {
    if (!(limit >= 0) || !std::isfinite(limit)) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_rtt_ms: ", limit, " is not a finite number ≥ 0"));
    }
  }
  for (int idle : options.idle_percent) {
    if (idle < 0 || idle >= 100) {
      return absl::InvalidArgumentError(
          absl::StrCat("idle_percent: ", idle, " is not in [0, 100)"));
    }
  }
  if (options.runtime_hours < 1 || static_cast<std::size_t>(options.runtime_hours) > hours) {
    return absl::InvalidArgumentError(absl::StrCat("runtime_hours: ", options.runtime_hours,
                                                   " is not between 1 and the trace's ", hours));
  }
  for (std::size_t origin : options.origins) {
    if (origin >= topology.size()) {
      return absl::InvalidArgumentError(absl::StrCat("origins: no site ", origin));
    }
  }
  if (!(options.carbon_weight >= 0) || !(options.latency_weight >= 0) ||
      options.carbon_weight + options.latency_weight <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("carbon_weight ", options.carbon_weight,
                                                   ", latency_weight ", options.latency_weight,
                                                   ": both ≥ 0, not both 0"));
  }
  if (!(options.carbon_tolerance >= 0) || !std::isfinite(options.carbon_tolerance)) {
    return absl::InvalidArgumentError(absl::StrCat("carbon_tolerance: ", options.carbon_tolerance,
                                                   " is not a finite number ≥ 0"));
  }
  if (options.max_rtt_ms.empty() || options.idle_percent.empty() || options.policies.empty()) {
    return absl::InvalidArgumentError("max_rtt_ms, idle_percent and policies must not be empty");
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view PolicyName(SimulatedPolicy policy) {
  switch (policy) {
    case SimulatedPolicy::kLocal:
      return "local";
    case SimulatedPolicy::kStatic:
      return "static";
    case SimulatedPolicy::kCarbonroute:
      return "carbonroute";
    case SimulatedPolicy::kOracle:
      return "oracle";
  }
  return "";
}

std::optional<SimulatedPolicy> ParsePolicy(absl::string_view name) {
  for (SimulatedPolicy policy : kSimulatedPolicies) {
    if (PolicyName(policy) == name) return policy;
  }
  return std::nullopt;
}

std::size_t SimulationSteps(const IntensityTrace& trace, const SimulationOptions& options) {
  return PeriodCount(trace.hours(), options.runtime_hours) * options.max_rtt_ms.size() *
         options.idle_percent.size();
}

absl::StatusOr<SimulationResult> Simulate(const SiteTopology& topology, const IntensityTrace& trace,
                                          const SimulationOptions& options) {
  CARBONROUTE_RETURN_IF_ERROR(Validate(topology, options, trace.hours()));
  const TraceMeans means(topology, trace, options.forecast);
  std::vector<bool> origin(topology.size(), options.origins.empty());
  for (std::size_t site : options.origins) origin[site] = true;

  struct Config {
    double max_rtt_ms;
    int idle_percent;
  };
  std::vector<Config> configs;
  for (int idle : options.idle_percent) {
    for (double limit : options.max_rtt_ms) configs.push_back({limit, idle});
  }
  std::vector<ConfigResult> results(configs.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < configs.size(); i = next++) {
      results[i] = RunConfig(topology, trace, means, options, origin, configs[i].max_rtt_ms,
                             configs[i].idle_percent);
    }
  };
  const unsigned threads = std::min<std::size_t>(
      configs.size(), options.threads > 0 ? static_cast<unsigned>(options.threads)
                                          : std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();

  SimulationResult out;
  out.periods = PeriodCount(trace.hours(), options.runtime_hours);
  out.worst_oracle_excess = -1;
  const double total_hours = static_cast<double>(trace.hours());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const ConfigResult& r = results[i];
    CARBONROUTE_RETURN_IF_ERROR(r.status);
    out.placements_checked += r.placements_checked;
    out.worst_oracle_excess = std::max(out.worst_oracle_excess, r.worst_oracle_excess);
    auto mean = [&](SimulatedPolicy p) {
      return r.hour_cost[static_cast<int>(p)] / (total_hours * r.origin_units);
    };
    const double local = mean(SimulatedPolicy::kLocal);
    const double oracle_saving = local - mean(SimulatedPolicy::kOracle);
    for (SimulatedPolicy policy : options.policies) {
      SimulationRow row;
      row.policy = policy;
      row.max_rtt_ms = configs[i].max_rtt_ms;
      row.idle_percent = configs[i].idle_percent;
      row.mean_grams_per_kwh = mean(policy);
      row.mean_rtt_ms = r.hour_rtt[static_cast<int>(policy)] / (total_hours * r.origin_units);
      row.saving_percent = 100.0 * (local - row.mean_grams_per_kwh) / local;
      if (oracle_saving > 1e-9 * local) {
        row.oracle_saving_share = (local - row.mean_grams_per_kwh) / oracle_saving;
      }
      out.rows.push_back(row);
    }
  }
  return out;
}

}  // namespace carbonroute::simulator
