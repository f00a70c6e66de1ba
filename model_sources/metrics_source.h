// File: model_sources/metrics_source.h
//
// Where scheduler-lite reads the carbonroute metrics from:
//   - ScrapeCollectors: one or more collectors' /metrics (text exposition),
//     each contributing its node's RTT row (latency role) or the cluster's
//     carbon series (carbon role); each sample gets the label
//     instance="<its URL>" unless it has one, as a Prometheus scrape would;
//   - QueryPrometheus: a Prometheus server's HTTP API, one instant query
//     (/api/v1/query) per metric the model uses, parsed with simdjson.
// Both return the same Samples, so the model is built the same way from either.
//
// Errors (per URL or query, in SourceResult::errors; the rest still count; a
// Prometheus that cannot be reached is one error, its other queries not tried):
//   kUnavailable / kDeadlineExceeded  the server could not be reached
//   kFailedPrecondition               it answered with a non-200 status, or
//                                     Prometheus said "status": "error"
//   kInvalidArgument                  the body is not valid exposition text / JSON
//
// Ownership: borrows the net::HttpClient. Thread safety: as the net::HttpClient.
#ifndef CARBONROUTE_MODEL_SOURCES_METRICS_SOURCE_H_
#define CARBONROUTE_MODEL_SOURCES_METRICS_SOURCE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "model_sources/exposition_parser.h"
#include "net/http_client.h"

namespace carbonroute::model_sources {

// How scheduler-lite reaches sources behind TLS and authentication (a
// collector or Prometheus started with a web config). Files are read again
// before every request (base/data_files.h ReadSecretFile: the contents without
// trailing line ends), so rotated tokens and passwords are picked up; their
// contents are sent, never logged (an error names the file only).
struct SourceAuth {
  std::string ca_file;           // PEM CA bundle for https sources ("" = the system's)
  std::string client_cert_file;  // PEM client certificate, with client_key_file
  std::string client_key_file;
  std::string basic_auth_user;  // with the password in basic_auth_password_file
  std::string basic_auth_password_file;
  std::string bearer_token_file;  // "Authorization: Bearer <the file's contents>"
};

// Sets `request`'s CA, client certificate and Authorization header from
// `auth`, reading the secret files now. Errors: ReadSecretFile's, naming the file.
absl::Status ApplySourceAuth(const SourceAuth& auth, net::HttpRequest& request);

struct SourceResult {
  std::vector<Sample> samples;
  std::vector<absl::Status> errors;
};

SourceResult ScrapeCollectors(net::HttpClient& http, const std::vector<std::string>& urls,
                              absl::Duration timeout, const SourceAuth& auth = {});

// `base_url` like "http://127.0.0.1:9090".
SourceResult QueryPrometheus(net::HttpClient& http, const std::string& base_url,
                             absl::Duration timeout, const SourceAuth& auth = {});

// One instant query (GET /api/v1/query?query=...) appended to `out`,
// evaluated at `at` (the server's now when absent); the server's error, or
// the answer's, naming the URL.
absl::Status QueryInstant(net::HttpClient& http, const std::string& base_url,
                          const std::string& promql, absl::Duration timeout, const SourceAuth& auth,
                          std::vector<Sample>& out, std::optional<absl::Time> at = std::nullopt);

// Parses a Prometheus /api/v1/query answer of resultType "vector" into samples
// named by their __name__ label. Exposed for tests.
absl::Status ParsePrometheusVector(absl::string_view body, std::vector<Sample>& out);

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_METRICS_SOURCE_H_
