#include "model_sources/metrics_source.h"

#include <simdjson.h>

#include <cmath>
#include <limits>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"
#include "net/url.h"

namespace carbonroute::model_sources {
namespace {

// The metrics the placement model is built from.
constexpr const char* kModelMetrics[] = {metric_names::kCarbonIntensity,
                                         metric_names::kCarbonIntensityValidTo,
                                         metric_names::kCarbonIntensityAge,
                                         metric_names::kForecastMean,
                                         metric_names::kNodeInfo,
                                         metric_names::kRtt,
                                         metric_names::kZoneRtt};

absl::StatusOr<std::string> Get(net::HttpClient& http, const std::string& url,
                                absl::Duration timeout, const char* accept,
                                const SourceAuth& auth) {
  net::HttpRequest request;
  request.url = url;
  request.timeout = timeout;
  request.headers.emplace_back("Accept", accept);
  if (absl::Status applied = ApplySourceAuth(auth, request); !applied.ok()) return applied;
  absl::StatusOr<net::HttpResponse> response = http.Send(request);
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return absl::FailedPreconditionError(absl::StrCat(url, " answered HTTP ", response->status));
  }
  return std::move(response->body);
}

double PrometheusValue(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double value = std::numeric_limits<double>::quiet_NaN();
  if (!absl::SimpleAtod(absl::string_view(text.data(), text.size()), &value)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return value;
}

}  // namespace

absl::Status ApplySourceAuth(const SourceAuth& auth, net::HttpRequest& request) {
  request.ca_file = auth.ca_file;
  request.client_cert_file = auth.client_cert_file;
  request.client_key_file = auth.client_key_file;
  if (!auth.bearer_token_file.empty()) {
    absl::StatusOr<std::string> token = ReadSecretFile(auth.bearer_token_file, "bearer token file");
    if (!token.ok()) return token.status();
    request.headers.emplace_back("Authorization", absl::StrCat("Bearer ", *token));
  } else if (!auth.basic_auth_user.empty()) {
    absl::StatusOr<std::string> password =
        ReadSecretFile(auth.basic_auth_password_file, "basic auth password file");
    if (!password.ok()) return password.status();
    request.headers.emplace_back(
        "Authorization", absl::StrCat("Basic ", absl::Base64Escape(absl::StrCat(
                                                    auth.basic_auth_user, ":", *password))));
  }
  return absl::OkStatus();
}

SourceResult ScrapeCollectors(net::HttpClient& http, const std::vector<std::string>& urls,
                              absl::Duration timeout, const SourceAuth& auth) {
  SourceResult result;
  for (const std::string& url : urls) {
    absl::StatusOr<std::string> body = Get(http, url, timeout, "text/plain; version=0.0.4", auth);
    if (!body.ok()) {
      result.errors.push_back(body.status());
      continue;
    }
    absl::StatusOr<Exposition> exposition = ParseExposition(*body);
    if (!exposition.ok()) {
      result.errors.push_back(
          absl::InvalidArgumentError(absl::StrCat(url, ": ", exposition.status().message())));
      continue;
    }
    for (Sample& sample : exposition->samples) {
      // Which collector said it, as Prometheus' scrape would: the carbon role's
      // replicas export the same series, each with its own valid_to.
      sample.labels.try_emplace(metric_labels::kInstance, url);
      result.samples.push_back(std::move(sample));
    }
  }
  return result;
}

absl::Status ParsePrometheusVector(absl::string_view body, std::vector<Sample>& out) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(body.data(), body.size()).get(root); error) {
    return absl::InvalidArgumentError(
        absl::StrCat("Prometheus answer is not valid JSON: ", simdjson::error_message(error)));
  }
  std::string_view status;
  if (root["status"].get_string().get(status) || status != "success") {
    std::string_view error = "no status";
    if (root["error"].get_string().get(error)) error = "no status";
    return absl::FailedPreconditionError(
        absl::StrCat("Prometheus query failed: ", std::string(error)));
  }
  simdjson::dom::array results;
  if (root["data"]["result"].get_array().get(results)) {
    return absl::InvalidArgumentError("Prometheus answer: data.result is not an array");
  }
  for (simdjson::dom::element series : results) {
    Sample sample;
    simdjson::dom::object metric;
    if (series["metric"].get_object().get(metric)) {
      return absl::InvalidArgumentError("Prometheus answer: result[].metric is not an object");
    }
    for (auto [key, value] : metric) {
      std::string_view text;
      if (value.get_string().get(text)) continue;
      if (key == "__name__") {
        sample.name = std::string(text);
      } else {
        sample.labels.emplace(std::string(key), std::string(text));
      }
    }
    simdjson::dom::array pair;
    std::string_view value_text;
    if (series["value"].get_array().get(pair) || pair.at(1).get_string().get(value_text)) {
      return absl::InvalidArgumentError(
          "Prometheus answer: result[].value is not [time, \"value\"]");
    }
    sample.value = PrometheusValue(value_text);
    out.push_back(std::move(sample));
  }
  return absl::OkStatus();
}

absl::Status QueryInstant(net::HttpClient& http, const std::string& base_url,
                          const std::string& promql, absl::Duration timeout, const SourceAuth& auth,
                          std::vector<Sample>& out, std::optional<absl::Time> at) {
  std::vector<std::pair<std::string, std::string>> params = {{"query", promql}};
  if (at) params.emplace_back("time", absl::StrCat(absl::ToUnixSeconds(*at)));
  const std::string url = absl::StrCat(net::JoinUrl(base_url, "/api/v1/query"), net::Query(params));
  absl::StatusOr<std::string> body = Get(http, url, timeout, "application/json", auth);
  if (!body.ok()) return body.status();
  if (absl::Status parsed = ParsePrometheusVector(*body, out); !parsed.ok()) {
    return absl::Status(parsed.code(), absl::StrCat(url, ": ", parsed.message()));
  }
  return absl::OkStatus();
}

SourceResult QueryPrometheus(net::HttpClient& http, const std::string& base_url,
                             absl::Duration timeout, const SourceAuth& auth) {
  SourceResult result;
  for (const char* metric : kModelMetrics) {
    absl::Status queried = QueryInstant(http, base_url, metric, timeout, auth, result.samples);
    if (queried.ok()) continue;
    result.errors.push_back(queried);
    // A server that cannot be reached is said once, not once per metric.
    if (absl::IsUnavailable(queried) || absl::IsDeadlineExceeded(queried)) break;
  }
  return result;
}

}  // namespace carbonroute::model_sources
