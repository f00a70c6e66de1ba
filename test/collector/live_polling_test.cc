// The collector's caching policy with live providers against a fake server on
// 127.0.0.1: failure cases, a simulated day's call count, a restart, and
// secrets that must never leak.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collector/collector_daemon.h"
#include "net/curl_http_client.h"
#include "polling/poller.h"
#include "prometheus/text_serializer.h"
#include "providers/electricity_maps_provider.h"
#include "test/testing/captured_log.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_clock.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::collector {
namespace {
using polling::Poller;
using polling::PollStats;

using testing::FakeProviderServer;
using testing::FakeRequest;
using testing::FakeResponse;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);  // on the hour

// An Electricity Maps "latest" body for the hour containing `now`.
std::string LatestBody(const std::string& zone, absl::Time now, double value, bool estimated) {
  const absl::Time hour =
      absl::FromCivil(absl::ToCivilHour(now, absl::UTCTimeZone()), absl::UTCTimeZone());
  return absl::StrFormat(
      R"({"zone":"%s","carbonIntensity":%g,"datetime":"%s","isEstimated":%s,"estimationMethod":null})",
      zone, value, absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", hour, absl::UTCTimeZone()),
      estimated ? "true" : "false");
}

std::string ZoneOf(const FakeRequest& request) {
  const std::size_t at = request.target.find("zone=");
  return request.target.substr(at + 5, request.target.find('&', at) - at - 5);
}

class LivePollingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_ = *net::CurlHttpClient::Create("carbonroute-test");
    provider_config_.name = "em";
    provider_config_.type = ProviderType::kElectricityMaps;
    provider_config_.http.base_url = server_.base_url() + "/v3";
    provider_config_.http.timeout = absl::Milliseconds(300);
    provider_config_.electricity_maps.token = {SecretRef::Source::kLiteral, "em-token"};
    poll_.forecast_horizon = absl::ZeroDuration();
  }

  std::unique_ptr<providers::ElectricityMapsProvider> Provider(std::vector<std::string> zones) {
    provider_config_.locations = std::move(zones);
    return *providers::ElectricityMapsProvider::Create(provider_config_, *http_);
  }
  std::string Scrape() { return prometheus::TextSerializer().Serialize(registry_.Collect()); }
  int Occurrences(const std::string& text) { return log_.Occurrences(text); }

  FakeProviderServer server_;
  std::unique_ptr<net::CurlHttpClient> http_;
  ProviderConfig provider_config_;
  PollConfig poll_;
  prometheus::Registry registry_;
  exporter::CollectorMetrics metrics_{registry_};
  testing::CapturedLog log_;
};

TEST_F(LivePollingTest, EachFailureKeepsTheLastGoodValueThenRemovesItAndIsCountedAndLoggedOnce) {
  auto store = *cache::ReadingStore::Open(":memory:");
  auto provider = Provider({"DE"});
  poll_.grace = absl::Hours(2);
  poll_.backoff_initial = absl::Seconds(1);
  poll_.backoff_max = absl::Seconds(2);
  Poller poller({provider.get()}, *store, metrics_, poll_, /*jitter_seed=*/5);

  absl::Time now = kT0 + absl::Minutes(1);
  server_.Script("/v3/carbon-intensity/latest", {{200, LatestBody("DE", now, 300, false), {}}});
  poller.PollOnce(now);
  ASSERT_THAT(Scrape(), HasSubstr("location=\"DE\",provider=\"em\"} 300"));

  const std::vector<std::pair<FakeResponse, std::string>> failures = {
      {{500, R"({"status":"error","message":"Unknown error occured"})", {}}, "unavailable"},
      {{502, "<html><body><h1>502 Bad Gateway</h1></body></html>", {}, {}, "text/html"},
       "unavailable"},
      {{200, "{\"zone\":\"DE\",\"carbonIntensity\":", {}}, "parse_error"},
      {{200, LatestBody("DE", now, 1, false), {}, FakeResponse::Mode::kTruncated}, "unavailable"},
      {{200, "", {}, FakeResponse::Mode::kHang}, "timeout"},
      {{200, R"({"zone":"DE","carbonIntensity":null,"datetime":"2027-01-15T09:00:00.000Z"})", {}},
       "unavailable"},
      {{429, "{}", {{"Retry-After", "5"}}}, "rate_limited"},
  };
  now = kT0 + absl::Hours(1) + absl::Minutes(1);  // the stored reading has expired
  for (const auto& [response, outcome] : failures) {
    server_.Script("/v3/carbon-intensity/latest", {response});
    now = std::max(now, poller.SeriesBlockedUntil({"em", "DE", EmissionsType::kAverage}));
    const PollStats stats = poller.PollOnce(now);
    EXPECT_EQ(stats.provider_errors, 1) << outcome;
    // The last good value is still exported (within valid_to + grace), with its age.
    EXPECT_THAT(Scrape(), HasSubstr("location=\"DE\",provider=\"em\"} 300")) << outcome;
    EXPECT_THAT(Scrape(), HasSubstr(absl::StrCat("carbonroute_provider_requests_total{outcome=\"",
                                                 outcome, "\",provider=\"em\"}")));
  }
  // One warning per change of error kind, each naming the provider and the location.
  EXPECT_EQ(Occurrences("provider em location DE: current reading failed"),
            6);  // 2 × unavailable in a row
  // After valid_to + grace the series disappears rather than lying.
  server_.Script("/v3/carbon-intensity/latest", {{500, "{}", {}}});
  poller.PollOnce(kT0 + absl::Hours(3) + absl::Seconds(1));
  EXPECT_THAT(Scrape(), Not(HasSubstr("carbonroute_carbon_intensity_grams_per_kilowatt_hour{")));
  // Recovery is logged once.
  server_.Script("/v3/carbon-intensity/latest",
                 {{200, LatestBody("DE", kT0 + absl::Hours(4), 280, true), {}}});
  poller.PollOnce(kT0 + absl::Hours(4));
  EXPECT_THAT(Scrape(), HasSubstr("estimated=\"true\",location=\"DE\",provider=\"em\"} 280"));
  EXPECT_EQ(Occurrences("provider em location DE: current reading recovered"), 1);
}

TEST_F(LivePollingTest, SimulatedDayOfTenZonesMakesTheCallsValidityImplies) {
  const std::vector<std::string> zones = {"AT", "BE", "CH", "DE", "DK-DK1",
                                          "ES", "FI", "FR", "GB", "PL"};
  testing::FakeClock clock(kT0 + absl::Minutes(30));
  server_.Route("/v3/carbon-intensity/latest", [&clock](const FakeRequest& request) {
    return FakeResponse{200, LatestBody(ZoneOf(request), clock.Now(), 120, false), {}};
  });
  testing::ScopedTempDir temp_dir;
  const std::string path = temp_dir.File("live_day.sqlite");
  auto provider = Provider(zones);
  {
    auto store = *cache::ReadingStore::Open(path);
    Poller poller({provider.get()}, *store, metrics_, poll_);
    clock.StopAt(kT0 + absl::Hours(12) + absl::Minutes(30));
    absl::Notification never;
    poller.Run(clock, never);
  }
  // Electricity Maps readings are valid for one hour [datetime, datetime + 1 h). Polling from
  // 00:30 for 12 h calls once at the start and once after each of the 12 hour boundaries crossed
  // (01:00 … 12:00): 13 calls per zone × 10 zones. Measured readings: no history calls.
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/latest"), 13 * 10);
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/history"), 0);

  // A restart mid-day (same database, same hour): zero upstream calls for still-valid readings.
  auto store = *cache::ReadingStore::Open(path);
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  Poller restarted({provider.get()}, *store, metrics, poll_);
  const PollStats stats = restarted.PollOnce(clock.Now());
  EXPECT_EQ(stats.provider_calls, 0);
  EXPECT_EQ(stats.cache_hits, 10);
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/latest"), 13 * 10);

  // Then the rest of the day: 12 more hour boundaries (12:30 → 00:30): 12 × 10 more calls.
  clock.StopAt(kT0 + absl::Hours(24) + absl::Minutes(30));
  absl::Notification never;
  restarted.Run(clock, never);
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/latest"), 25 * 10);
}

TEST_F(LivePollingTest, HistoryReplacesEstimatesWithMeasurements) {
  auto store = *cache::ReadingStore::Open(":memory:");
  auto provider = Provider({"DE"});
  Poller poller({provider.get()}, *store, metrics_, poll_);
  const absl::Time first = kT0 + absl::Minutes(5);
  server_.Script("/v3/carbon-intensity/latest", {{200, LatestBody("DE", first, 400, true), {}}});
  server_.Script(
      "/v3/carbon-intensity/history",
      {{200,
        absl::StrCat(R"({"zone":"DE","history":[)", LatestBody("DE", first, 380, false), "]}"),
        {}}});
  poller.PollOnce(first);  // stores the estimate; history is asked because an estimate is stored
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/history"), 1);
  absl::StatusOr<std::optional<cache::IntensityRecord>> stored =
      store->ValidAt({"em", "DE", EmissionsType::kAverage}, first);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->value, 380);
  EXPECT_FALSE((*stored)->estimated);
  poller.PollOnce(first + absl::Minutes(30));  // at most hourly, and nothing estimated is left
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/history"), 1);
}

TEST_F(LivePollingTest, ARestartWithinTheHourAsksNoHistory) {
  // The history has no measurement yet, so the estimate stays and history
  // would be asked again: at most hourly, also across a restart.
  testing::ScopedTempDir dir;
  const std::string path = dir.File("cache.sqlite");
  const absl::Time first = kT0 + absl::Minutes(5);
  server_.Script("/v3/carbon-intensity/latest", {{200, LatestBody("DE", first, 400, true), {}}});
  server_.Script("/v3/carbon-intensity/history", {{200, R"({"zone":"DE","history":[]})", {}}});
  {
    auto store = *cache::ReadingStore::Open(path);
    auto provider = Provider({"DE"});
    Poller poller({provider.get()}, *store, metrics_, poll_);
    poller.PollOnce(first);
  }
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/history"), 1);
  {
    auto store = *cache::ReadingStore::Open(path);
    auto provider = Provider({"DE"});
    Poller restarted({provider.get()}, *store, metrics_, poll_);
    restarted.PollOnce(first + absl::Minutes(30));
    EXPECT_EQ(server_.Count("/v3/carbon-intensity/history"), 1);
    const absl::Time later = first + absl::Minutes(61);  // an hour on: asked again
    server_.Script("/v3/carbon-intensity/latest", {{200, LatestBody("DE", later, 410, true), {}}});
    restarted.PollOnce(later);
  }
  EXPECT_EQ(server_.Count("/v3/carbon-intensity/history"), 2);
}

TEST_F(LivePollingTest, PlantedSecretsNeverReachLogsMetricsOrTheDatabase) {
  constexpr char kPassword[] = "wt-pass-SECRET-7f3a91";
  constexpr char kToken[] = "em-token-SECRET-c0ffee";
  testing::ScopedTempDir temp_dir;  // secrets
  const std::string& dir = temp_dir.path();
  // WattTime: login works, data calls fail with 403 and then 500; EM: one good answer, then errors.
  server_.Script("/login", {{200, R"({"token":"bearer-SECRET-0ddba11"})", {}}});
  server_.Script("/v3/my-access", {{500, "{}", {}}});
  server_.Script("/v3/forecast", {{403, "<html>403 Forbidden</html>", {}}, {500, "{}", {}}});
  server_.Route("/v3/carbon-intensity/latest", [](const FakeRequest& request) {
    return FakeResponse{200, LatestBody(ZoneOf(request), absl::Now(), 99, true), {}};
  });
  server_.Script("/v3/carbon-intensity/history", {{401, R"({"error":"Invalid auth-token"})", {}}});
  CollectorConfig config;
  config.listen_address = "127.0.0.1:0";
  config.database = dir + "/collector.sqlite";
  config.node.name = "secret-node";
  config.poll.forecast_horizon = absl::Hours(4);
  ProviderConfig watttime;
  watttime.name = "watttime";
  watttime.type = ProviderType::kWattTime;
  watttime.locations = {"CAISO_NORTH"};
  watttime.http.base_url = server_.base_url();
  watttime.watttime.username = {SecretRef::Source::kLiteral, "user"};
  watttime.watttime.password = {SecretRef::Source::kLiteral, kPassword};
  ProviderConfig em = provider_config_;
  em.locations = {"DE"};
  em.electricity_maps.token = {SecretRef::Source::kLiteral, kToken};
  config.providers = {watttime, em};

  {
    testing::FakeClock clock(absl::Now());
    auto daemon = CollectorDaemon::Create(config, {}, clock);
    ASSERT_THAT(daemon, IsOk());
    clock.StopAt(clock.Now() + absl::Hours(3));
    absl::Notification never;
    (*daemon)->Run(never);
    const std::string page = testing::HttpGet((*daemon)->port(), "/metrics");
    ASSERT_THAT(page, HasSubstr("carbonroute_provider_requests_total"));
    for (const char* secret : {kPassword, kToken, "bearer-SECRET-0ddba11"}) {
      EXPECT_THAT(page, Not(HasSubstr(secret)));
    }
  }
  const std::string log = log_.text();
  ASSERT_THAT(log, HasSubstr("provider watttime location CAISO_NORTH"));  // errors were logged
  std::string database;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    database += testing::ReadFile(entry.path().string());
  }
  ASSERT_THAT(database, HasSubstr("em"));  // readings were stored
  for (const char* secret : {kPassword, kToken, "bearer-SECRET-0ddba11"}) {
    EXPECT_THAT(log, Not(HasSubstr(secret)));
    EXPECT_THAT(database, Not(HasSubstr(secret)));
  }
}

// A provider paused by a 401 says why where people look: the status page and /healthz
// (still 200: a restart would not mend a credential), not only the log.
TEST_F(LivePollingTest, APausedProvidersCauseIsOnTheStatusPageAndInHealth) {
  server_.Route("/v3/carbon-intensity/latest", [](const FakeRequest&) {
    return FakeResponse{401, R"({"error":"Invalid auth-token"})", {}};
  });
  testing::ScopedTempDir dir;
  CollectorConfig config;
  config.listen_address = "127.0.0.1:0";
  config.database = dir.File("collector.sqlite");
  config.poll.forecast_horizon = absl::ZeroDuration();
  ProviderConfig em = provider_config_;
  em.locations = {"DE"};
  config.providers = {em};
  testing::FakeClock clock(absl::Now());
  auto daemon = CollectorDaemon::Create(config, {}, clock);
  ASSERT_THAT(daemon, IsOk());
  clock.StopAt(clock.Now() + absl::Hours(1));
  absl::Notification never;
  (*daemon)->Run(never);
  const std::string status = testing::HttpGet((*daemon)->port(), "/api/v1/status");
  EXPECT_THAT(status, HasSubstr(": configuration_error: current reading failed "
                                "(unauthenticated): "));
  EXPECT_THAT(status, HasSubstr("Invalid auth-token"));
  int code = 0;
  const std::string health = testing::HttpGet((*daemon)->port(), "/healthz", &code);
  EXPECT_EQ(code, 200);
  EXPECT_THAT(health, HasSubstr("ok\nconfiguration_error: provider em location DE: current "
                                "reading failed (unauthenticated)"));
  EXPECT_THAT(health, Not(HasSubstr("em-token")));
}

}  // namespace
}  // namespace carbonroute::collector
