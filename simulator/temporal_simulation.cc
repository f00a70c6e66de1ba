#include "simulator/temporal_simulation.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "simulator/temporal_shift.h"
#include "simulator/zone_groups.h"

namespace carbonroute::simulator {
namespace {

// Σ over arrivals of each job's mean, per zone, for one (length, slack, interruptible) cell.
struct ZoneSums {
  double now = 0;
  double carbonroute = 0;
  double oracle = 0;
  std::size_t arrivals = 0;
};

absl::Status CheckOptions(const IntensityTrace& trace,
                          const std::map<std::string, std::set<std::string>>& zone_groups,
                          const TemporalOptions& options) {
  if (options.job_lengths_hours.empty() || options.slacks_hours.empty() ||
      options.interruptible.empty() || options.groups.empty()) {
    return absl::InvalidArgumentError(
        "job lengths, slacks, interruptibility and groups must not be empty");
  }
  for (const int length : options.job_lengths_hours) {
    if (length < 1 || static_cast<std::size_t>(length) > trace.hours()) {
      return absl::InvalidArgumentError(absl::StrCat("job length ", length, " h is outside 1 h to ",
                                                     trace.hours(), " h (the trace)"));
    }
  }
  for (const int slack : options.slacks_hours) {
    if (slack < 0)
      return absl::InvalidArgumentError(absl::StrCat("slack ", slack, " h is negative"));
  }
  for (const std::string& group : options.groups) {
    if (group != kGlobalGroup && !zone_groups.contains(group)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown group \"", group, "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<TemporalRow>> SimulateTemporal(
    const IntensityTrace& trace, const std::map<std::string, std::set<std::string>>& zone_groups,
    const TemporalOptions& options, const IntensityTrace* reachable) {
  if (absl::Status status = CheckOptions(trace, zone_groups, options); !status.ok()) return status;
  if (reachable != nullptr &&
      (reachable->zones() != trace.zones() || reachable->hours() != trace.hours())) {
    return absl::InvalidArgumentError("the reachable trace must have the trace's zones and hours");
  }
  const IntensityTrace& waits_on = reachable != nullptr ? *reachable : trace;
  const std::size_t zones = trace.zones().size();
  const std::size_t lengths = options.job_lengths_hours.size();
  const std::size_t slacks = options.slacks_hours.size();
  const std::size_t modes = options.interruptible.size();
  // sums[((zone × lengths + l) × slacks + s) × modes + m]
  std::vector<ZoneSums> sums(zones * lengths * slacks * modes);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    std::vector<double> home(trace.hours()), hourly(trace.hours());
    std::vector<double> forecast;
    for (std::size_t unit = next++; unit < zones * lengths && !failed; unit = next++) {
      const std::size_t zone = unit / lengths, l = unit % lengths;
      for (std::size_t h = 0; h < hourly.size(); ++h) {
        home[h] = trace.Value(zone, h).value_or(0);
        hourly[h] = waits_on.Value(zone, h).value_or(0);
      }
      if (options.carbonroute) {
        SimulatedForecast zone_forecast = options.forecast;
        zone_forecast.seed += zone;  // each zone its own errors, the same every run
        forecast = ForecastSeries(hourly, zone_forecast);
      }
      const int length = options.job_lengths_hours[l];
      const absl::StatusOr<std::vector<double>> now = RunNowMeans(home, {length, 0, false});
      if (!now.ok()) {
        failed = true;
        return;
      }
      double now_sum = 0;
      for (const double mean : *now) now_sum += mean;
      std::optional<CarbonrouteWaiting> waiting;  // one per zone and length, every slack
      if (options.carbonroute) {
        absl::StatusOr<CarbonrouteWaiting> made =
            CarbonrouteWaiting::Create(hourly, forecast, length, options.forecast_horizon_hours);
        if (!made.ok()) {
          failed = true;
          return;
        }
        waiting.emplace(*std::move(made));
      }
      for (std::size_t s = 0; s < slacks; ++s) {
        for (std::size_t m = 0; m < modes; ++m) {
          const TemporalJob job{length, options.slacks_hours[s],
                                static_cast<bool>(options.interruptible[m])};
          const absl::StatusOr<std::vector<double>> oracle = OracleMeans(hourly, job);
          absl::StatusOr<std::vector<double>> carbonroute = std::vector<double>();
          if (waiting) carbonroute = waiting->Means(job.slack_hours, job.interruptible);
          if (!oracle.ok() || !carbonroute.ok()) {
            failed = true;
            return;
          }
          ZoneSums& cell = sums[((unit * slacks) + s) * modes + m];
          cell.now = now_sum;
          cell.arrivals = now->size();
          for (std::size_t t = 0; t < oracle->size(); ++t) {
            const double bound = (*oracle)[t] - 1e-9 * (1 + (*oracle)[t]);
            if ((*now)[t] < bound) failed = true;  // the oracle is a lower bound: a bug
            if (options.carbonroute) {
              if ((*carbonroute)[t] < bound) failed = true;
              cell.carbonroute += (*carbonroute)[t];
            }
            cell.oracle += (*oracle)[t];
          }
        }
      }
    }
  };
  const int threads = options.threads > 0
                          ? options.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (failed) {
    return absl::InternalError(
        "the temporal oracle exceeded another policy for some job, or a policy failed (a bug)");
  }

  std::vector<TemporalRow> rows;
  for (const std::string& group : options.groups) {
    std::vector<std::size_t> members;
    for (std::size_t z = 0; z < zones; ++z) {
      if (group == kGlobalGroup || zone_groups.at(group).contains(trace.zones()[z])) {
        members.push_back(z);
      }
    }
    if (members.empty()) continue;
    for (std::size_t l = 0; l < lengths; ++l) {
      for (std::size_t s = 0; s < slacks; ++s) {
        for (std::size_t m = 0; m < modes; ++m) {
          double now = 0, carbonroute = 0, oracle = 0, jobs = 0;
          for (const std::size_t z : members) {
            const ZoneSums& cell = sums[(((z * lengths + l) * slacks) + s) * modes + m];
            now += cell.now;
            carbonroute += cell.carbonroute;
            oracle += cell.oracle;
            jobs += static_cast<double>(cell.arrivals);
          }
          now /= jobs;
          carbonroute /= jobs;
          oracle /= jobs;
          const double oracle_reduction = now - oracle;
          std::vector<TemporalPolicy> policies = {TemporalPolicy::kNow};
          if (options.carbonroute) policies.push_back(TemporalPolicy::kCarbonroute);
          policies.push_back(TemporalPolicy::kOracle);
          for (const TemporalPolicy policy : policies) {
            TemporalRow& row = rows.emplace_back();
            row.policy = policy;
            row.group = group;
            row.job_length_hours = options.job_lengths_hours[l];
            row.slack_hours = options.slacks_hours[s];
            row.interruptible = options.interruptible[m];
            row.mean_grams_per_kwh = policy == TemporalPolicy::kNow           ? now
                                     : policy == TemporalPolicy::kCarbonroute ? carbonroute
                                                                              : oracle;
            row.reduction_grams_per_kwh = now - row.mean_grams_per_kwh;
            if (oracle_reduction > 0) {
              row.oracle_saving_share = row.reduction_grams_per_kwh / oracle_reduction;
            }
          }
        }
      }
    }
  }
  return rows;
}

}  // namespace carbonroute::simulator
