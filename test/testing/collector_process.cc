#include "test/testing/collector_process.h"

#include <fstream>
#include <regex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "test/testing/build_paths.h"

namespace carbonroute::testing {

std::string HttpGet(int port, const std::string& path, int* status) {
  static net::CurlHttpClient* const http =
      net::CurlHttpClient::Create("carbonroute-test")->release();
  net::HttpRequest request;
  request.url = absl::StrCat("http://127.0.0.1:", port, path);
  request.timeout = absl::Seconds(5);
  absl::StatusOr<net::HttpResponse> response = http->Send(request);
  if (status != nullptr) *status = response.ok() ? response->status : 0;
  return response.ok() ? response->body : "";
}

bool IsHealthy(int port) {
  int status = 0;
  HttpGet(port, "/healthz", &status);
  return status == 200;
}

CollectorProcess LaunchCollector(const std::string& dir, const std::string& config_yaml,
                                 const std::string& log_name,
                                 const std::vector<std::string>& extra_args) {
  const std::string config_path = dir + "/collector.yaml";
  std::ofstream(config_path) << config_yaml;
  CollectorProcess collector;
  std::vector<std::string> argv = {CARBONROUTE_COLLECTOR_BINARY, "--config", config_path,
                                   "--data-dir", std::string(CARBONROUTE_SOURCE_DIR) + "/data"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  collector.process = std::make_unique<Subprocess>(argv, dir + "/" + log_name);
  const std::regex serving(R"(serving https?://127\.0\.0\.1:(\d+)/metrics)");
  WaitFor(
      [&] {
        std::smatch match;
        const std::string log = collector.process->Log();
        if (std::regex_search(log, match, serving)) {
          (void)absl::SimpleAtoi(match[1].str(), &collector.port);
        }
        return collector.port > 0;
      },
      absl::Seconds(30));
  return collector;
}

CollectorProcess StartCollector(const std::string& dir, const std::string& config_yaml,
                                const std::string& log_name,
                                const std::vector<std::string>& extra_args) {
  CollectorProcess collector = LaunchCollector(dir, config_yaml, log_name, extra_args);
  if (collector.port > 0 &&
      !WaitFor([&] { return IsHealthy(collector.port); }, absl::Seconds(30))) {
    collector.port = 0;
  }
  return collector;
}

}  // namespace carbonroute::testing
