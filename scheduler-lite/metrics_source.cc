#include "scheduler-lite/metrics_source.h"

#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "exporter/metric_names.h"

namespace carbonroute::scheduler_lite {

std::vector<IntensityObservation> ExtractIntensities(const Exposition& exposition,
                                                     const std::string& source) {
  using Key = std::tuple<std::string, std::string, std::string>;  // location, provider, type
  std::map<Key, double> valid_to;
  for (const Sample& sample : exposition.samples) {
    if (sample.name == metric_names::kCarbonIntensityValidTo && std::isfinite(sample.value)) {
      valid_to[{sample.Label("location"), sample.Label("provider"), sample.Label("emissions_type")}] =
          sample.value;
    }
  }
  std::vector<IntensityObservation> observations;
  for (const Sample& sample : exposition.samples) {
    if (sample.name != metric_names::kCarbonIntensity || !std::isfinite(sample.value)) continue;
    IntensityObservation observation;
    observation.location = sample.Label("location");
    observation.provider = sample.Label("provider");
    observation.emissions_type = sample.Label("emissions_type");
    observation.grams_per_kwh = sample.value;
    observation.estimated = sample.Label("estimated") == "true";
    observation.source = source;
    auto it = valid_to.find({observation.location, observation.provider, observation.emissions_type});
    if (it != valid_to.end()) observation.valid_to = absl::FromUnixSeconds(static_cast<int64_t>(it->second));
    observations.push_back(std::move(observation));
  }
  return observations;
}

ScrapeResult ScrapeCollectors(HttpClient& http, const std::vector<std::string>& urls,
                              absl::Duration timeout) {
  ScrapeResult result;
  for (const std::string& url : urls) {
    HttpRequest request;
    request.url = url;
    request.timeout = timeout;
    request.headers.emplace_back("Accept", "text/plain; version=0.0.4");
    absl::StatusOr<HttpResponse> response = http.Send(request);
    if (!response.ok()) {
      result.errors.push_back(response.status());
      continue;
    }
    if (response->status != 200) {
      result.errors.push_back(absl::FailedPreconditionError(
          absl::StrCat(url, " answered HTTP ", response->status)));
      continue;
    }
    absl::StatusOr<Exposition> exposition = ParseExposition(response->body);
    if (!exposition.ok()) {
      result.errors.push_back(absl::InvalidArgumentError(
          absl::StrCat(url, ": ", exposition.status().message())));
      continue;
    }
    for (IntensityObservation& observation : ExtractIntensities(*exposition, url)) {
      result.intensities.push_back(std::move(observation));
    }
  }
  return result;
}

}  // namespace carbonroute::scheduler_lite
