// File: test/testing/prometheus_process.h
//
// Starts a real Prometheus server (Debian package `prometheus`) for the
// integration tests: it scrapes the given loopback ports and evaluates its
// rules every second, keeps its TSDB in the test's directory and listens on
// 127.0.0.1:`port`.
#ifndef CARBONROUTE_TEST_TESTING_PROMETHEUS_PROCESS_H_
#define CARBONROUTE_TEST_TESTING_PROMETHEUS_PROCESS_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "test/testing/subprocess.h"

namespace carbonroute::testing {

inline constexpr char kPrometheusBinary[] = "/usr/bin/prometheus";

// One scrape job: its `job` label and the port(s) on 127.0.0.1 it scrapes.
struct ScrapeTarget {
  std::string job;
  int port = 0;
  std::string job_yaml = "";         // more keys of the scrape_config, e.g. "scheme: https\n"
  std::vector<int> more_ports = {};  // more targets of the same job
};

// Writes `dir`/prometheus.yml and starts Prometheus with `dir`/tsdb, logging
// to `dir`/prometheus.log. `rule_files` are absolute paths. `port` 0: it binds
// a port of its own, which PrometheusPort reads from its log (no other process
// can take that port meanwhile).
std::unique_ptr<Subprocess> StartPrometheus(const std::string& dir, int port,
                                            const std::vector<ScrapeTarget>& targets,
                                            const std::vector<std::string>& rule_files = {});

// The port a Prometheus started on port 0 listens on (its log's "Listening on"
// line; up to 30 s), 0 when it did not say.
int PrometheusPort(const Subprocess& prometheus);

// Asks Prometheus on 127.0.0.1:`port` for the instant `query` until it answers
// `series` series (up to `timeout`); returns the result array, or an empty
// one if it never did.
nlohmann::json WaitForSeries(int port, const std::string& query, std::size_t series,
                             absl::Duration timeout = absl::Seconds(60));

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_PROMETHEUS_PROCESS_H_
