#include "model_sources/forecast_client.h"

#include "absl/strings/str_cat.h"
#include "net/url.h"

namespace carbonroute::model_sources {

absl::StatusOr<std::vector<ForecastPoint>> FetchForecast(absl::string_view collector,
                                                         absl::string_view location,
                                                         net::HttpClient& http,
                                                         const SourceAuth& auth) {
  absl::StatusOr<ForecastSeries> series = FetchForecastSeries(collector, location, http, auth);
  if (!series.ok()) return series.status();
  return std::move(series->points);
}

absl::StatusOr<ForecastSeries> FetchForecastSeries(absl::string_view collector,
                                                   absl::string_view location,
                                                   net::HttpClient& http, const SourceAuth& auth) {
  net::HttpRequest get;
  get.url = absl::StrCat(net::JoinUrl(collector, forecast_api::kPath),
                         net::Query({{forecast_api::kLocationParameter, std::string(location)}}));
  if (absl::Status applied = ApplySourceAuth(auth, get); !applied.ok()) return applied;
  absl::StatusOr<net::HttpResponse> response = http.Send(get);
  if (!response.ok()) return response.status();
  if (response->status == 404) {  // the collector polls no such location
    return absl::NotFoundError(absl::StrCat(get.url, " answered HTTP 404: ", response->body));
  }
  if (response->status != 200) {
    return absl::FailedPreconditionError(
        absl::StrCat(get.url, " answered HTTP ", response->status, ": ", response->body));
  }
  absl::StatusOr<ForecastAnswer> answer = forecast_api::DecodeAnswer(response->body);
  if (!answer.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(get.url, ": ", answer.status().message()));
  }
  if (answer->series.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(get.url, ": no forecast series"));
  }
  return std::move(answer->series.front());
}

}  // namespace carbonroute::model_sources
