#include "hold/forecast_source.h"

#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"
#include "hold/hold_patches.h"
#include "model_sources/forecast_client.h"
#include "net/url.h"

namespace carbonroute::hold {
namespace {

// GET `path_and_query` from `collector` with the collector's auth.
absl::StatusOr<net::HttpResponse> SdkGet(net::HttpClient& http,
                                         const model_sources::SourceAuth& auth,
                                         const std::string& collector,
                                         const std::string& path_and_query, std::string& url) {
  net::HttpRequest get;
  get.url = url = net::JoinUrl(collector, path_and_query);
  if (absl::Status applied = model_sources::ApplySourceAuth(auth, get); !applied.ok()) {
    return applied;
  }
  return http.Send(get);
}

// The SDK's mean over [start, end): first whether any reading overlaps it
// (/emissions/bylocation answers 204 when none: the SDK's average answers 0
// then, its AverageOverPeriod's rule, which the ledger must not book), then
// the mean ({location, startTime, endTime, carbonIntensity}); a 400 (a period
// the readings do not wholly cover, an unknown location) is kNotFound too.
absl::StatusOr<double> AverageCarbonIntensity(net::HttpClient& http,
                                              const model_sources::SourceAuth& auth,
                                              const std::string& collector,
                                              const std::string& location, absl::Time start,
                                              absl::Time end) {
  const std::string times = net::Query(
      {{"location", location}, {"time", AnnotationTime(start)}, {"toTime", AnnotationTime(end)}});
  std::string url;
  for (const bool mean : {false, true}) {
    absl::StatusOr<net::HttpResponse> response =
        SdkGet(http, auth, collector,
               mean ? absl::StrCat("/emissions/average-carbon-intensity",
                                   net::Query({{"location", location},
                                               {"startTime", AnnotationTime(start)},
                                               {"endTime", AnnotationTime(end)}}))
                    : absl::StrCat("/emissions/bylocation", times),
               url);
    if (!response.ok()) return response.status();
    if (response->status == 204) {
      return absl::NotFoundError(absl::StrCat(url, ": no reading of ", location, " from ",
                                              AnnotationTime(start), " to ", AnnotationTime(end)));
    }
    if (response->status == 400) {
      return absl::NotFoundError(absl::StrCat(url, " answered HTTP 400: ", response->body));
    }
    if (response->status != 200) {
      return absl::UnavailableError(
          absl::StrCat(url, " answered HTTP ", response->status, ": ", response->body));
    }
    if (!mean) continue;
    const nlohmann::json body = nlohmann::json::parse(response->body, nullptr, false);
    if (!body.is_object() || !body.contains("carbonIntensity") ||
        !body["carbonIntensity"].is_number()) {
      return absl::UnavailableError(
          absl::StrCat(url, ": expected {\"carbonIntensity\": a number}, got ", response->body));
    }
    return body["carbonIntensity"].get<double>();
  }
  return absl::InternalError("unreachable");
}

}  // namespace

absl::StatusOr<std::vector<std::string>> CollectorForecasts::Locations() {
  std::vector<std::string> failures;
  for (const std::string& collector : collectors_) {
    model_sources::SourceResult result = model_sources::ScrapeCollectors(
        http_, {net::JoinUrl(collector, "/metrics")}, absl::Seconds(10), auth_);
    if (!result.errors.empty() && result.samples.empty()) {
      failures.push_back(std::string(result.errors.front().message()));
      continue;
    }
    std::set<std::string> locations;
    for (const model_sources::Sample& sample : result.samples) {
      if (sample.name == metric_names::kCarbonIntensity &&
          !sample.Label(metric_labels::kLocation).empty()) {
        locations.insert(sample.Label(metric_labels::kLocation));
      }
    }
    return std::vector<std::string>(locations.begin(), locations.end());
  }
  return absl::UnavailableError(
      absl::StrCat("no collector answered: ", absl::StrJoin(failures, "; ")));
}

absl::StatusOr<std::vector<ForecastPoint>> CollectorForecasts::Forecast(
    const std::string& location) {
  std::vector<std::string> failures;
  bool not_found = false;
  for (const std::string& collector : collectors_) {
    absl::StatusOr<std::vector<ForecastPoint>> points =
        model_sources::FetchForecast(collector, location, http_, auth_);
    if (points.ok()) return points;
    not_found = not_found || absl::IsNotFound(points.status());
    failures.push_back(std::string(points.status().message()));
  }
  const std::string why = absl::StrJoin(failures, "; ");
  return not_found ? absl::NotFoundError(why) : absl::UnavailableError(why);
}

absl::StatusOr<ObservedMean> CollectorForecasts::Observed(const std::string& location,
                                                          absl::Time start, absl::Time end) {
  std::vector<std::string> failures;
  bool not_found = false;
  for (const std::string& collector : collectors_) {
    absl::StatusOr<double> mean =
        AverageCarbonIntensity(http_, auth_, collector, location, start, end);
    absl::StatusOr<ForecastSeries> series =
        mean.ok() ? model_sources::FetchForecastSeries(collector, location, http_, auth_)
                  : absl::StatusOr<ForecastSeries>(mean.status());
    if (series.ok()) return ObservedMean{*mean, series->emissions_type};
    not_found = not_found || absl::IsNotFound(series.status());
    failures.push_back(std::string(series.status().message()));
  }
  const std::string why = absl::StrJoin(failures, "; ");
  return not_found ? absl::NotFoundError(why) : absl::UnavailableError(why);
}

}  // namespace carbonroute::hold
