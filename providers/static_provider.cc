#include "providers/static_provider.h"

#include "absl/strings/str_cat.h"

namespace carbonroute::providers {
namespace {

std::vector<std::string> Keys(const std::map<std::string, double>& values) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : values) keys.push_back(key);
  return keys;
}

}  // namespace

StaticProvider::StaticProvider(std::string name, StaticSettings settings)
    : name_(std::move(name)),
      settings_(std::move(settings)),
      locations_(Keys(settings_.grams_per_kwh)) {}

absl::StatusOr<Reading> StaticProvider::Current(absl::string_view location, absl::Time now) {
  auto it = settings_.grams_per_kwh.find(std::string(location));
  if (it == settings_.grams_per_kwh.end()) {
    return absl::NotFoundError(
        absl::StrCat("provider \"", name_, "\": no value configured for \"", location, "\""));
  }
  const absl::Time start =
      absl::UnixEpoch() + absl::Floor(now - absl::UnixEpoch(), settings_.validity);
  Reading reading;
  reading.value = it->second;
  reading.valid_from = start;
  reading.valid_to = start + settings_.validity;
  return reading;
}

absl::StatusOr<std::vector<Reading>> StaticProvider::Forecast(absl::string_view location,
                                                              absl::Time now,
                                                              absl::Duration horizon) {
  // A constant forecast is one point, however short the validity: from the
  // current reading's start to the first validity boundary at or after
  // now + horizon (a point per 1 s of validity was 90,000 rows per location).
  absl::StatusOr<Reading> point = Current(location, now);
  if (!point.ok()) return point.status();
  const absl::Duration span = now + horizon - point->valid_from;
  absl::Duration remainder;
  int64_t periods = absl::IDivDuration(span, settings_.validity, &remainder);
  if (remainder > absl::ZeroDuration() || periods < 1) ++periods;
  point->valid_to = point->valid_from + periods * settings_.validity;
  return std::vector<Reading>{*std::move(point)};
}

}  // namespace carbonroute::providers
