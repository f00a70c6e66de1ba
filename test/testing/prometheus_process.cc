#include "test/testing/prometheus_process.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/url.h"
#include "test/testing/collector_process.h"

namespace carbonroute::testing {

std::unique_ptr<Subprocess> StartPrometheus(const std::string& dir, int port,
                                            const std::vector<ScrapeTarget>& targets,
                                            const std::vector<std::string>& rule_files) {
  std::string config = "global: {scrape_interval: 1s, evaluation_interval: 1s}\n";
  if (!rule_files.empty()) {
    absl::StrAppend(&config, "rule_files:\n");
    for (const std::string& file : rule_files) absl::StrAppend(&config, "  - '", file, "'\n");
  }
  absl::StrAppend(&config, "scrape_configs:\n");
  for (const ScrapeTarget& target : targets) {
    std::string addresses = absl::StrCat("'127.0.0.1:", target.port, "'");
    for (int more : target.more_ports) absl::StrAppend(&addresses, ", '127.0.0.1:", more, "'");
    absl::StrAppend(&config, "  - job_name: ", target.job, "\n    static_configs: [{targets: [",
                    addresses, "]}]\n");
    for (absl::string_view line : absl::StrSplit(target.job_yaml, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&config, "    ", line, "\n");
    }
  }
  std::ofstream(dir + "/prometheus.yml") << config;
  return std::make_unique<Subprocess>(
      std::vector<std::string>{kPrometheusBinary, "--config.file=" + dir + "/prometheus.yml",
                               "--storage.tsdb.path=" + dir + "/tsdb",
                               absl::StrCat("--web.listen-address=127.0.0.1:", port)},
      dir + "/prometheus.log");
}

int PrometheusPort(const Subprocess& prometheus) {
  return LoggedPort(prometheus, "msg=\"Listening on\"");
}

nlohmann::json WaitForSeries(int port, const std::string& query, std::size_t series,
                             absl::Duration timeout) {
  nlohmann::json result = nlohmann::json::array();
  const bool answered = WaitFor(
      [&] {
        const std::string body = HttpGet(port, "/api/v1/query?query=" + net::UrlEncode(query));
        nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
        if (parsed.is_discarded() || parsed.value("status", "") != "success") return false;
        result = parsed["data"]["result"];
        return result.size() == series;
      },
      timeout);
  return answered ? result : nlohmann::json::array();
}

}  // namespace carbonroute::testing
