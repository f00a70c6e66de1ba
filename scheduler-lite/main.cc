// scheduler-lite: scores grid locations from the collectors' gauges.
#include <CLI/CLI.hpp>
#include <iostream>

#include "absl/strings/str_split.h"
#include "providers/curl_http_client.h"
#include "scheduler-lite/intensity_ranking.h"
#include "scheduler-lite/metrics_source.h"
#include "scheduler-lite/ranking_output.h"

namespace {

using namespace carbonroute::scheduler_lite;  // NOLINT: main only

int Rank(const std::vector<std::string>& urls, const std::string& locations,
         const std::string& emissions_type, const std::string& format) {
  absl::StatusOr<std::unique_ptr<carbonroute::CurlHttpClient>> http =
      carbonroute::CurlHttpClient::Create(std::string("scheduler-lite/") + CARBONROUTE_VERSION);
  if (!http.ok()) {
    std::cerr << "scheduler-lite: " << http.status().message() << "\n";
    return 1;
  }
  ScrapeResult scraped = ScrapeCollectors(**http, urls, absl::Seconds(10));
  for (const absl::Status& error : scraped.errors) {
    std::cerr << "scheduler-lite: warning: " << error.message() << "\n";
  }
  if (scraped.errors.size() == urls.size()) {
    std::cerr << "scheduler-lite: no collector could be read\n";
    return 1;
  }
  RankOptions options;
  if (!locations.empty()) options.locations = absl::StrSplit(locations, ',', absl::SkipEmpty());
  options.emissions_type = emissions_type;
  options.now = absl::Now();
  const Ranking ranking = RankByIntensity(scraped.intensities, options);
  std::cout << (format == "json" ? RankingJson(ranking) : RankingTable(ranking));
  return ranking.ranked.empty() ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scheduler-lite: carbon-aware placement from carbonroute collectors' metrics."};
  app.set_version_flag("--version", std::string("scheduler-lite ") + CARBONROUTE_VERSION);
  app.require_subcommand(1);

  CLI::App* rank = app.add_subcommand("rank", "rank grid locations by current carbon intensity, cleanest first");
  std::vector<std::string> urls{"http://127.0.0.1:9464/metrics"};
  std::string locations, emissions_type, format = "table";
  rank->add_option("--metrics", urls, "a collector's /metrics URL (repeatable)")->capture_default_str();
  rank->add_option("--locations", locations, "only these locations, comma-separated (e.g. DE,FR,SE-SE3)");
  rank->add_option("--emissions-type", emissions_type, "average or marginal (default: both)")
      ->check(CLI::IsMember({"average", "marginal"}));
  rank->add_option("--format", format, "table or json")->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (rank->parsed()) return Rank(urls, locations, emissions_type, format);
  return 0;
}
