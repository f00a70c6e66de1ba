// File: test/testing/collector_process.h
//
// Starts the real carbonroute-collector binary on 127.0.0.1, port 0, with a
// config written to a test directory, and finds the port it bound from its log.
#ifndef CARBONROUTE_TEST_TESTING_COLLECTOR_PROCESS_H_
#define CARBONROUTE_TEST_TESTING_COLLECTOR_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "test/testing/subprocess.h"

namespace carbonroute::testing {

struct CollectorProcess {
  std::unique_ptr<Subprocess> process;
  int port = 0;  // 0 when it did not come up
};

// Writes `config_yaml` to `dir`/collector.yaml and starts the collector with
// --data-dir pointing at the repository's data/. Waits up to 30 s for the log
// line naming the port and for /healthz to answer 200.
// `extra_args` follow the config and data-dir flags (e.g. --node-name).
CollectorProcess StartCollector(const std::string& dir, const std::string& config_yaml,
                                const std::string& log_name = "collector.log",
                                const std::vector<std::string>& extra_args = {});

// StartCollector without waiting for /healthz: returns once the log names the
// port (up to 30 s), while the first poll may still be running.
// `extra_args` follow the config and data-dir flags (e.g. --web.config.file).
CollectorProcess LaunchCollector(const std::string& dir, const std::string& config_yaml,
                                 const std::string& log_name = "collector.log",
                                 const std::vector<std::string>& extra_args = {});

// GET http://127.0.0.1:port/path; "" on any failure.
std::string HttpGet(int port, const std::string& path, int* status = nullptr);

// Whether GET http://127.0.0.1:port/healthz answers 200 (the collector and
// scheduler-lite serve both have it).
bool IsHealthy(int port);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_COLLECTOR_PROCESS_H_
