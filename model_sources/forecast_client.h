// File: model_sources/forecast_client.h
//
// The client side of a collector's forecast API (contract/forecast_api.h),
// for the `window` command.
//
// Errors: the HTTP client's transport errors (kUnavailable,
// kDeadlineExceeded, kInvalidArgument for a malformed URL);
// kNotFound when the collector polls no such location (HTTP 404);
// kFailedPrecondition "<url> answered HTTP <status>: <body>" for another
// answer other than 200; kInvalidArgument "<url>: ..." for a body that is not a
// forecast answer or has no series.
// Thread safety: as the HTTP client.
#ifndef CARBONROUTE_MODEL_SOURCES_FORECAST_CLIENT_H_
#define CARBONROUTE_MODEL_SOURCES_FORECAST_CLIENT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "contract/forecast_api.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"

namespace carbonroute::model_sources {

// The forecast points of `location` from the collector at base URL
// `collector` (e.g. "http://127.0.0.1:9464"): those of the first series the
// collector lists.
// `auth`: the collector's TLS and credentials, as for the other sources.
absl::StatusOr<std::vector<ForecastPoint>> FetchForecast(absl::string_view collector,
                                                         absl::string_view location,
                                                         net::HttpClient& http,
                                                         const SourceAuth& auth = {});
// The same, the whole first series: its provider and emissions type too.
absl::StatusOr<ForecastSeries> FetchForecastSeries(absl::string_view collector,
                                                   absl::string_view location,
                                                   net::HttpClient& http,
                                                   const SourceAuth& auth = {});

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_FORECAST_CLIENT_H_
