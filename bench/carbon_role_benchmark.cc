// Upstream calls, logins and carbon series for a cluster of N Nodes in 6
// grid locations, before (every DaemonSet pod polls the providers: the
// shipped manifests until the carbon role) and after (the latency role polls
// nothing; the carbon role's 2 replicas poll the cluster's locations).
// bench/README.md "Carbon once per cluster".
//
// Every collector is the real one short of its process: the providers built
// by MakeProvider from the configuration each role ships, behind the
// client-side limiter, the Poller with its SQLite cache (in memory), and the
// metrics registry. Upstream is an in-process fake answering WattTime v3 (a
// 5-minute MOER forecast, a token per login) and Electricity Maps v3 (hourly
// readings, a 24-hour forecast) with the shapes of their documentation; it
// counts every request. Time is a fake clock: each collector is polled
// through one simulated hour (after its start-up), as its poll loop would,
// polling again at the Poller's next_poll. The collectors of a cluster are
// independent, so they run one after another against the shared account
// counters (the clock set back to the start for each); "before" is measured
// with every one of the N collectors.
//
// Usage: carbon_role_benchmark [MAX_NODES]   (default 5000; 10, 100, 1000, 5000 up to it)
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/data_files.h"
#include "base/utc_time.h"
#include "cache/reading_store.h"
#include "collector/node_locations.h"
#include "contract/region_locations.h"
#include "exporter/collector_metrics.h"
#include "polling/poller.h"
#include "prometheus/registry.h"
#include "providers/call_limiter.h"
#include "providers/make_provider.h"
#include "test/testing/fake_clock.h"

namespace carbonroute {
namespace {

constexpr char kRegions[][24] = {"europe-west3", "europe-west4", "europe-west9",
                                 "us-west2",     "us-central1",  "asia-northeast1"};
constexpr char kZones[][16] = {"DE", "NL", "FR", "US-CAL-CISO", "US-CENT-SWPP", "JP-TK"};

std::string Param(const std::string& url, const std::string& name) {
  const std::size_t at = url.find(name + "=");
  if (at == std::string::npos) return "";
  const std::size_t start = at + name.size() + 1;
  return url.substr(start, url.find('&', start) - start);
}

// "/v3/forecast" of "http://host/v3/forecast?region=X".
std::string PathOf(const std::string& url) {
  const std::size_t start = url.find('/', url.find("//") + 2);
  return url.substr(start, url.find('?', start) - start);
}

// The account's upstream: answers as WattTime and Electricity Maps do, counts requests.
class FakeUpstream final : public net::HttpClient {
 public:
  explicit FakeUpstream(const Clock& clock) : clock_(clock) {}

  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest& request) override {
    const std::string& url = request.url;
    const absl::Time now = clock_.Now();
    absl::MutexLock lock(&mutex_);
    ++requests_;
    ++by_endpoint_[PathOf(url)];
    if (absl::StrContains(url, "/login")) {
      ++logins_;
      login_times_.push_back(now);
      return net::HttpResponse{200, {}, R"({"token":"bench"})"};
    }
    if (absl::StrContains(url, "/v3/my-access")) {
      return net::HttpResponse{200, {}, R"({"signal_types":[]})"};
    }
    if (absl::StrContains(url, "/v3/region-from-loc")) {
      return net::HttpResponse{200,
                               {},
                               absl::StrCat(R"({"region":"R)", Param(url, "latitude"),
                                            R"(","signal_type":"co2_moer"})")};
    }
    if (absl::StrContains(url, "/v3/forecast")) {  // 5-minute points from the current one
      const absl::Time start = absl::FromUnixSeconds(absl::ToUnixSeconds(now) / 300 * 300);
      const int points = std::max(1, std::atoi(Param(url, "horizon_hours").c_str()) * 12);
      std::vector<std::string> data;
      for (int i = 0; i < points; ++i) {
        data.push_back(absl::StrCat(R"({"point_time":")", UtcSeconds(start + absl::Minutes(5 * i)),
                                    R"(","value":900})"));
      }
      return net::HttpResponse{
          200,
          {},
          absl::StrCat(R"({"data":[)", absl::StrJoin(data, ","),
                       R"(],"meta":{"data_point_period_seconds":300,"region":")",
                       Param(url, "region"), R"(","units":"lbs_co2_per_mwh"}})")};
    }
    const absl::Time hour = absl::FromUnixSeconds(absl::ToUnixSeconds(now) / 3600 * 3600);
    if (absl::StrContains(url, "/carbon-intensity/latest")) {
      return net::HttpResponse{
          200,
          {},
          absl::StrCat(R"({"zone":")", Param(url, "zone"), R"(","carbonIntensity":300,)",
                       R"("datetime":")", UtcSeconds(hour), R"(","isEstimated":false})")};
    }
    if (absl::StrContains(url, "/carbon-intensity/forecast")) {  // the next 24 hours
      std::vector<std::string> data;
      for (int i = 0; i < 24; ++i) {
        data.push_back(absl::StrCat(R"({"carbonIntensity":300,"datetime":")",
                                    UtcSeconds(hour + absl::Hours(i)), R"("})"));
      }
      return net::HttpResponse{200,
                               {},
                               absl::StrCat(R"({"zone":")", Param(url, "zone"), R"(","forecast":[)",
                                            absl::StrJoin(data, ","), "]}")};
    }
    return net::HttpResponse{404, {}, "{}"};
  }

  struct Counts {
    int64_t requests = 0, logins = 0;
    int most_logins_in_5_minutes = 0;
    std::map<std::string, int64_t> by_endpoint;  // path → requests
  };
  Counts counts() {
    absl::MutexLock lock(&mutex_);
    std::vector<absl::Time> times = login_times_;
    std::sort(times.begin(), times.end());
    int most = 0;
    for (std::size_t first = 0, last = 0; last < times.size(); ++last) {
      while (times[last] - times[first] >= absl::Minutes(5)) ++first;
      most = std::max(most, static_cast<int>(last - first + 1));
    }
    return {requests_, logins_, most, by_endpoint_};
  }

 private:
  const Clock& clock_;
  absl::Mutex mutex_;
  int64_t requests_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t logins_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<absl::Time> login_times_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, int64_t> by_endpoint_ ABSL_GUARDED_BY(mutex_);
};

std::vector<ProviderConfig> Providers(bool from_nodes, int shared_by) {
  ProviderConfig watttime;
  watttime.name = "watttime";
  watttime.type = ProviderType::kWattTime;
  watttime.http.base_url = "http://watttime.invalid";
  watttime.watttime.username = {SecretRef::Source::kLiteral, "u"};
  watttime.watttime.password = {SecretRef::Source::kLiteral, "p"};
  ProviderConfig em;
  em.name = "electricity_maps";
  em.type = ProviderType::kElectricityMaps;
  em.http.base_url = "http://electricitymaps.invalid/v3";
  em.electricity_maps.token = {SecretRef::Source::kLiteral, "t"};
  for (ProviderConfig* provider : {&watttime, &em}) {
    provider->locations_from_nodes = from_nodes;
    provider->limits.account_shared_by = shared_by;
  }
  if (!from_nodes) {  // the DaemonSet's static lists: WattTime regions, Electricity Maps zones
    watttime.locations = {"DE", "NL", "FR", "CAISO_SOUTH", "SPP_KC", "JP_TK"};
    em.locations.assign(std::begin(kZones), std::end(kZones));
  }
  return {watttime, em};
}

std::vector<kube::KubeNode> Nodes(int count) {
  std::vector<kube::KubeNode> nodes;
  for (int i = 0; i < count; ++i) {
    kube::KubeNode& node = nodes.emplace_back();
    node.name = absl::StrFormat("node-%05d", i);
    node.region = kRegions[i % 6];
    node.zone = absl::StrCat(node.region, "-a");
  }
  return nodes;
}

struct Lookups {
  collector::RegionLocations regions;
  collector::RegionCoordinates coordinates;
};

// One collector through its first hour: returns its carbon series at the end.
int RunCollector(const std::vector<ProviderConfig>& configs,
                 const std::vector<kube::KubeNode>* nodes, const Lookups& lookups,
                 FakeUpstream& upstream, testing::FakeClock& clock, absl::Time start) {
  clock.Advance(start - clock.Now());
  std::vector<std::unique_ptr<providers::LimitedHttpClient>> clients;
  std::vector<std::unique_ptr<providers::Provider>> owned;
  std::vector<providers::Provider*> borrowed;
  for (const ProviderConfig& config : configs) {
    clients.push_back(std::make_unique<providers::LimitedHttpClient>(
        upstream, providers::PublishedLimits(config), clock));
    owned.push_back(*providers::MakeProvider(config, DataPaths{}, *clients.back()));
    borrowed.push_back(owned.back().get());
  }
  auto store = *cache::ReadingStore::Open(":memory:");
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  PollConfig poll;
  polling::Poller poller(borrowed, *store, metrics, poll, /*jitter_seed=*/1, clock);
  for (const ProviderConfig& config : configs) {
    if (!config.locations_from_nodes) continue;
    collector::NodeLocations found =
        collector::LocationsOfNodes(config, *nodes, lookups.regions, lookups.coordinates);
    poller.SetLocations(config.name, found.codes, static_cast<int>(found.unmapped.size()))
        .IgnoreError();
  }
  for (providers::Provider* provider : borrowed) provider->Start(start).IgnoreError();
  for (absl::Time t = start; t < start + absl::Hours(1);) {
    clock.Advance(t - clock.Now());
    const polling::PollStats stats = poller.PollOnce(t);
    t = std::max(stats.next_poll, t + absl::Seconds(1));
  }
  int series = 0;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (absl::StartsWith(family.name, "carbonroute_carbon_intensity") ||
        family.name == "carbonroute_provider_units_info") {
      series += static_cast<int>(family.metric.size());
    }
  }
  return series;
}

struct Row {
  int nodes;
  FakeUpstream::Counts before, after;
  int64_t before_series, after_series;
  double seconds;
};

}  // namespace
}  // namespace carbonroute

int main(int argc, char** argv) {
  using namespace carbonroute;
  const int max_nodes = argc > 1 ? std::atoi(argv[1]) : 5000;
  spdlog::set_level(spdlog::level::err);  // each collector's start-up lines, 5,000 times
  const DataPaths data = DataPathsFrom({}, "");
  Lookups lookups;
  lookups.regions = *ParseRegionLocationsCsv(
      *ReadFileToString(*FindDataFile(kRegionZonesFile, data), "zones"), "zones");
  lookups.coordinates = *ParseRegionCoordinatesCsv(
      *ReadFileToString(*FindDataFile(kRegionCoordinatesFile, data), "coordinates"), "coordinates");
  const absl::Time start = absl::FromUnixSeconds(1'800'000'000) + absl::Minutes(7);
  std::vector<Row> rows;
  for (int n : {10, 100, 1000, 5000}) {
    if (n > max_nodes) break;
    const auto began = std::chrono::steady_clock::now();
    Row row{n, {}, {}, 0, 0, 0};
    const std::vector<kube::KubeNode> nodes = Nodes(n);
    {  // before: every Node's collector polls both providers for the 6 locations
      testing::FakeClock clock(start);
      FakeUpstream upstream(clock);
      for (int i = 0; i < n; ++i) {
        row.before_series +=
            RunCollector(Providers(false, 1), nullptr, lookups, upstream, clock, start);
      }
      row.before = upstream.counts();
    }
    {  // after: 2 carbon-role replicas with `locations: nodes`; the latency role calls nothing
      testing::FakeClock clock(start);
      FakeUpstream upstream(clock);
      for (int replica = 0; replica < 2; ++replica) {
        row.after_series +=
            RunCollector(Providers(true, 2), &nodes, lookups, upstream, clock, start);
      }
      row.after = upstream.counts();
    }
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    rows.push_back(row);
    std::fprintf(stderr, "%d Nodes measured in %.1f s\n", n, row.seconds);
  }
  std::printf(
      "| Nodes | upstream calls / h, before | after | logins / h, before | after | most logins in "
      "5 "
      "min, before (limit 100) | after | carbon series in Prometheus, before | after |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& row : rows) {
    std::printf(
        "| %d | %lld | %lld | %lld | %lld | %d | %d | %lld | %lld |\n", row.nodes,
        static_cast<long long>(row.before.requests), static_cast<long long>(row.after.requests),
        static_cast<long long>(row.before.logins), static_cast<long long>(row.after.logins),
        row.before.most_logins_in_5_minutes, row.after.most_logins_in_5_minutes,
        static_cast<long long>(row.before_series), static_cast<long long>(row.after_series));
  }
  if (!rows.empty()) {  // what one collector of "before" calls in its hour, by endpoint
    std::printf("\nOne collector (before), calls in its first hour by endpoint:\n");
    for (const auto& [path, calls] : rows.front().before.by_endpoint) {
      std::printf("  %s: %lld\n", path.c_str(), static_cast<long long>(calls / rows.front().nodes));
    }
  }
  return 0;
}
