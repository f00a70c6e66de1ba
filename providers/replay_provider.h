// File: providers/replay_provider.h
//
// `replay`: serves a real historical hourly trace as if it were live, so the
// whole pipeline runs with no credentials and no network. The reading for
// "now" is the trace's value at the same UTC calendar hour (IntensityTrace::
// TraceHour documents the mapping), valid from the top of the current hour to
// the next; the forecast is the trace's following hours (a perfect forecast),
// wrapping from December 31 to January 1.
//
// Readings are average (lifecycle) emissions in gCO2eq/kWh, estimated=false.
#ifndef CARBONROUTE_PROVIDERS_REPLAY_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_REPLAY_PROVIDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/intensity_trace.h"
#include "providers/provider.h"

namespace carbonroute::providers {

class ReplayProvider final : public Provider {
 public:
  // `locations` are zone codes of `trace`, or {"*"} for all of them.
  // kInvalidArgument naming the zone if one is not a column of the trace.
  static absl::StatusOr<std::unique_ptr<ReplayProvider>> Create(
      std::string name, std::shared_ptr<const IntensityTrace> trace,
      const std::vector<std::string>& locations);

  const std::string& name() const override { return name_; }
  const std::vector<std::string>& locations() const override { return locations_; }
  EmissionsType emissions_type() const override { return EmissionsType::kAverage; }

  // kNotFound for a zone that is not in the trace or has no value at that hour.
  absl::StatusOr<Reading> Current(absl::string_view location, absl::Time now) override;
  absl::StatusOr<std::vector<Reading>> Forecast(absl::string_view location, absl::Time now,
                                                absl::Duration horizon) override;

 private:
  ReplayProvider(std::string name, std::shared_ptr<const IntensityTrace> trace,
                 std::vector<std::string> locations)
      : name_(std::move(name)), trace_(std::move(trace)), locations_(std::move(locations)) {}

  // kNotFound naming the location if it is not a zone of the trace.
  absl::StatusOr<std::size_t> ZoneOf(absl::string_view location) const;
  absl::StatusOr<Reading> ReadingForHour(absl::string_view location, std::size_t zone,
                                         absl::Time hour_start) const;

  const std::string name_;
  const std::shared_ptr<const IntensityTrace> trace_;
  const std::vector<std::string> locations_;
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_REPLAY_PROVIDER_H_
