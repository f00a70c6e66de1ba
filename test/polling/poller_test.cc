#include "polling/poller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "contract/intensity_trace.h"
#include "exporter/metrics_page.h"
#include "prometheus/text_serializer.h"
#include "providers/http_status.h"
#include "providers/replay_provider.h"
#include "providers/static_provider.h"
#include "test/testing/build_paths.h"
#include "test/testing/counting_provider.h"
#include "test/testing/fake_clock.h"
#include "test/testing/status_matchers.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::polling {
namespace {

using testing::CountingProvider;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;

const absl::Time kPollStart =
    absl::FromUnixSeconds(1'800'000'000);  // 2027-01-15T08:00:00Z, on the hour

std::unique_ptr<CountingProvider> StaticCounting(std::map<std::string, double> values) {
  StaticSettings settings;
  settings.grams_per_kwh = std::move(values);
  return std::make_unique<CountingProvider>(
      std::make_unique<providers::StaticProvider>("fixed", settings));
}

class PollerTest : public ::testing::Test {
 protected:
  PollerTest() : metrics_(*registry_) {}

  std::unique_ptr<cache::ReadingStore> Open(const std::string& path) {
    absl::StatusOr<std::unique_ptr<cache::ReadingStore>> store = cache::ReadingStore::Open(path);
    EXPECT_THAT(store, IsOk());
    return *std::move(store);
  }
  std::string Scrape() { return prometheus::TextSerializer().Serialize(registry_->Collect()); }

  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  exporter::CollectorMetrics metrics_;
  PollConfig config_;
  // Times provider calls; nothing advances it unless a test says so, so a
  // call's answer comes at the poll's own `now`.
  testing::FakeClock clock_{kPollStart};
};

TEST_F(PollerTest, CacheServesReadingsUntilTheirValidityEnds) {
  auto provider = StaticCounting({{"A", 100}, {"B", 200}, {"C", 300}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);

  PollStats first = poller.PollOnce(kPollStart + absl::Minutes(10));
  EXPECT_EQ(provider->current_calls, 3);
  EXPECT_EQ(first.exported_series, 3);
  EXPECT_EQ(first.next_poll,
            kPollStart + absl::Minutes(11));  // now + interval comes before valid_to

  PollStats second = poller.PollOnce(kPollStart + absl::Minutes(59));
  EXPECT_EQ(provider->current_calls, 3);  // no upstream call while the cache covers now
  EXPECT_EQ(second.cache_hits, 3);

  poller.PollOnce(kPollStart + absl::Hours(1));
  EXPECT_EQ(provider->current_calls, 6);  // a new validity window
  EXPECT_EQ(provider->forecast_calls, 0);
}

TEST_F(PollerTest, NextPollIsCappedByTheInterval) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  EXPECT_EQ(poller.PollOnce(kPollStart).next_poll, kPollStart + absl::Seconds(60));
  EXPECT_EQ(poller.PollOnce(kPollStart + absl::Seconds(3590)).next_poll,
            kPollStart + absl::Hours(1));
}

TEST_F(PollerTest, ExportsReadingValidToAndForecastMeans) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::Hours(4);
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart + absl::Minutes(5));
  const std::string text = Scrape();
  EXPECT_THAT(text,
              HasSubstr("carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type="
                        "\"average\",estimated=\"false\",location=\"A\",provider=\"fixed\"} 100"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat(
                        "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type="
                        "\"average\",location=\"A\",provider=\"fixed\"} ",
                        absl::ToUnixSeconds(kPollStart + absl::Hours(1)))));
  EXPECT_THAT(text, HasSubstr("carbonroute_carbon_intensity_forecast_mean_grams_per_kilowatt_hour{"
                              "emissions_type=\"average\",location=\"A\",provider=\"fixed\",window="
                              "\"4h\"} 100"));
  // The 24h window is beyond the 4h horizon: not exported rather than guessed.
  EXPECT_THAT(text, Not(HasSubstr("window=\"24h\"")));
  EXPECT_THAT(
      text, HasSubstr("carbonroute_provider_requests_total{outcome=\"ok\",provider=\"fixed\"} 2"));
}

TEST_F(PollerTest, FailingProviderRemovesTheSeriesAndCountsTheOutcome) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.grace = absl::ZeroDuration();
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart);
  EXPECT_THAT(Scrape(), HasSubstr("location=\"A\",provider=\"fixed\"} 100"));

  provider->fail_with = absl::UnavailableError("upstream down");
  PollStats stats = poller.PollOnce(kPollStart + absl::Hours(1));  // the cached reading has expired
  EXPECT_EQ(stats.provider_errors, 1);
  const std::string text = Scrape();
  EXPECT_THAT(text, Not(HasSubstr("carbonroute_carbon_intensity_grams_per_kilowatt_hour{")));
  EXPECT_THAT(
      text,
      HasSubstr(
          "carbonroute_provider_requests_total{outcome=\"unavailable\",provider=\"fixed\"} 1"));

  provider->fail_with = absl::OkStatus();
  poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(1));
  EXPECT_THAT(Scrape(), HasSubstr("location=\"A\",provider=\"fixed\"} 100"));
}

TEST_F(PollerTest, RestartReusingTheDatabaseMakesNoProviderCalls) {
  testing::ScopedTempDir temp_dir;
  const std::string path = temp_dir.File("poller_restart.sqlite");
  config_.forecast_horizon = absl::Hours(4);
  {
    auto provider = StaticCounting({{"A", 100}, {"B", 200}});
    auto store = Open(path);
    Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
    poller.PollOnce(kPollStart + absl::Minutes(10));
    EXPECT_EQ(provider->current_calls, 2);
    EXPECT_EQ(provider->forecast_calls, 2);
  }
  auto provider = StaticCounting({{"A", 100}, {"B", 200}});
  auto store = Open(path);
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  Poller restarted({provider.get()}, *store, metrics, config_);
  PollStats stats = restarted.PollOnce(kPollStart + absl::Minutes(20));
  EXPECT_EQ(provider->current_calls, 0);
  EXPECT_EQ(provider->forecast_calls, 0);
  EXPECT_EQ(stats.exported_series, 2);
}

TEST_F(PollerTest, SimulatedDayOfReplayMakesTheCallsValidityImplies) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Load(
      std::string(CARBONROUTE_SOURCE_DIR) + "/data/carbon-intensity-2022-hourly.csv");
  ASSERT_THAT(trace, IsOk());
  const std::vector<std::string> zones = {"AT", "BE", "CH", "DE", "DK-DK1",
                                          "ES", "FI", "FR", "GB", "PL"};
  auto replay = providers::ReplayProvider::Create(
      "replay", std::make_shared<const IntensityTrace>(*std::move(trace)), zones);
  ASSERT_THAT(replay, IsOk());
  CountingProvider provider(*std::move(replay));
  auto store = Open(":memory:");
  config_.interval = absl::Seconds(60);
  config_.forecast_horizon = absl::Hours(24);
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);

  // One simulated day, starting half past an hour.
  const absl::Time start = kPollStart + absl::Minutes(30);
  testing::FakeClock clock(start);
  clock.StopAt(start + absl::Hours(24));
  absl::Notification never;
  poller.Run(clock, never);

  // Current readings are valid for one hour: one call at the start, then one per hour
  // boundary crossed (start+30m … start+23h30m): 1 + 24 = 25 per zone.
  EXPECT_EQ(provider.current_calls, 25 * 10);
  // Forecasts are fetched for horizon + 1 h = 25 h and reach the top of the hour after that:
  // fetched at start (8:30) they end at 8:00 + 26 h, so coverage runs below now + 24 h on the
  // first poll after 10:00 (10:01), then every 2 h: 8:30, 10:01, 12:01, …, 08:01 next day
  // (before the 08:30 stop) = 1 + 12 = 13 per zone.
  EXPECT_EQ(provider.forecast_calls, 13 * 10);
  // Polls every 60 s (hour boundaries fall on minute marks): 24 × 60 waits.
  EXPECT_EQ(clock.waits(), 24 * 60 - 1);
}

TEST_F(PollerTest, LastGoodReadingIsKeptThroughTheGraceWithItsAge) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.grace = absl::Minutes(30);
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart);  // valid until kPollStart + 1h
  provider->fail_with = absl::UnavailableError("upstream down");

  PollStats during = poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(10));
  EXPECT_EQ(during.provider_errors, 1);
  EXPECT_EQ(during.exported_series, 1);
  std::string text = Scrape();
  EXPECT_THAT(text, HasSubstr("location=\"A\",provider=\"fixed\"} 100"));
  EXPECT_THAT(text, HasSubstr("carbonroute_carbon_intensity_age_seconds{emissions_type=\"average\","
                              "location=\"A\",provider=\"fixed\"} 4200"));  // fetched 70 min ago

  poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(30));  // valid_to + grace reached
  text = Scrape();
  EXPECT_THAT(text, Not(HasSubstr("carbonroute_carbon_intensity_grams_per_kilowatt_hour{")));
  EXPECT_THAT(text, Not(HasSubstr("carbonroute_carbon_intensity_age_seconds{")));
}

// An ordered fallback: the backup stands by (no call, no series) while the preferred provider
// has a valid reading, answers in its place once it has none (its provider label saying so,
// counted once), and gives way again at the preferred one's next valid reading.
TEST_F(PollerTest, AFallbackAnswersOnlyWhileThePreferredProviderHasNoValidReading) {
  auto named = [](const char* name, double grams) {
    StaticSettings settings;
    settings.grams_per_kwh = {{"A", grams}};
    return std::make_unique<CountingProvider>(
        std::make_unique<providers::StaticProvider>(name, settings));
  };
  auto preferred = named("em", 100);
  auto backup = named("backup", 300);
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.grace = absl::Minutes(30);
  config_.fallback = {{.providers = {"em", "backup"}, .locations = {"A"}}};
  Poller poller({preferred.get(), backup.get()}, *store, metrics_, config_, /*jitter_seed=*/1,
                clock_);
  const std::string em_series =
      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
      "estimated=\"false\",location=\"A\",provider=\"em\"} 100";
  const std::string backup_series =
      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
      "estimated=\"false\",location=\"A\",provider=\"backup\"} 300";
  const std::string counted =
      "carbonroute_provider_fallbacks_total{location=\"A\",preferred=\"em\","
      "provider=\"backup\"} 1";

  poller.PollOnce(kPollStart);  // em valid until kPollStart + 1h
  EXPECT_EQ(preferred->current_calls, 1);
  EXPECT_EQ(backup->current_calls, 0);
  EXPECT_THAT(Scrape(), HasSubstr(em_series));
  EXPECT_THAT(Scrape(), Not(HasSubstr("location=\"A\",provider=\"backup\"")));

  // em has no valid reading: the backup answers, counted once.
  preferred->fail_with = absl::UnavailableError("upstream down");
  poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(1));
  EXPECT_EQ(backup->current_calls, 1);
  EXPECT_THAT(Scrape(), HasSubstr(backup_series));
  EXPECT_THAT(Scrape(), HasSubstr(counted));
  // ...and em's stale reading is not exported beside it (no grace while the backup is valid).
  poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(2));
  std::string text = Scrape();
  EXPECT_THAT(text, Not(HasSubstr(em_series)));
  EXPECT_THAT(text, HasSubstr(backup_series));
  EXPECT_THAT(text, HasSubstr(counted));  // still once
  EXPECT_EQ(backup->current_calls, 1);    // the cache's reading

  // em answers again: it takes over at its next valid reading; the backup stands by.
  preferred->fail_with = absl::OkStatus();
  poller.PollOnce(kPollStart + absl::Hours(2) + absl::Minutes(1));
  text = Scrape();
  EXPECT_THAT(text, HasSubstr(em_series));
  EXPECT_THAT(text, Not(HasSubstr(backup_series)));
  EXPECT_EQ(backup->current_calls, 1);
  // Both providers' readings stay apart in the cache.
  EXPECT_THAT(store->ValidAt({"backup", "A", EmissionsType::kAverage},
                             kPollStart + absl::Hours(1) + absl::Minutes(30)),
              IsOk());
}

TEST_F(PollerTest, TransientFailuresBackOffExponentiallyWithJitter) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.backoff_initial = absl::Seconds(30);
  config_.backoff_max = absl::Minutes(5);
  provider->fail_with = absl::UnavailableError("HTTP 503");
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/7, clock_);

  absl::Time now = kPollStart;
  for (int failure = 1; failure <= 6; ++failure) {
    const int calls_before = provider->current_calls;
    poller.PollOnce(now);
    ASSERT_EQ(provider->current_calls, calls_before + 1) << "failure " << failure;
    const absl::Duration pause =
        poller.SeriesBlockedUntil({"fixed", "A", EmissionsType::kAverage}) - now;
    // 30 s × 2^(n−1), capped at 5 min, × [0.5, 1.5).
    const absl::Duration base =
        std::min(absl::Seconds(30) * (1 << (failure - 1)), absl::Minutes(5));
    EXPECT_GE(pause, base * 0.5) << "failure " << failure;
    EXPECT_LT(pause, base * 1.5) << "failure " << failure;
    // No call while backing off.
    PollStats blocked = poller.PollOnce(now + pause - absl::Seconds(1));
    EXPECT_EQ(provider->current_calls, calls_before + 1);
    EXPECT_EQ(blocked.skipped_calls, 1);
    EXPECT_EQ(blocked.next_poll, now + pause);
    now += pause;
  }
  provider->fail_with = absl::OkStatus();
  poller.PollOnce(now);
  EXPECT_THAT(Scrape(), HasSubstr("location=\"A\",provider=\"fixed\"} 100"));
  // A success resets the count: the next failure backs off from 30 s again.
  provider->fail_with = absl::UnavailableError("HTTP 503");
  const absl::Time next_hour = kPollStart + absl::Hours(2);  // the stored reading has expired
  poller.PollOnce(next_hour);
  EXPECT_LT(poller.ProviderBlockedUntil("fixed") - next_hour, absl::Seconds(45));
}

TEST_F(PollerTest, RateLimitHonoursRetryAfter) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  absl::Status limited = absl::ResourceExhaustedError("HTTP 429");
  limited.SetPayload(providers::kRetryAfterPayload, absl::Cord("120"));
  provider->fail_with = limited;
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/3, clock_);
  poller.PollOnce(kPollStart);
  EXPECT_EQ(poller.ProviderBlockedUntil("fixed"), kPollStart + absl::Seconds(120));
  EXPECT_THAT(
      Scrape(),
      HasSubstr(
          "carbonroute_provider_requests_total{outcome=\"rate_limited\",provider=\"fixed\"} 1"));
}

TEST_F(PollerTest, ConfigurationErrorIsNotRetriedInALoop) {
  auto provider = StaticCounting({{"A", 100}, {"B", 200}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.config_error_retry = absl::Hours(6);
  provider->fail_with = absl::FailedPreconditionError("zone not in this token's plan");
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  absl::Time now = kPollStart;
  for (int i = 0; i < 60; ++i, now += absl::Minutes(1)) poller.PollOnce(now);
  EXPECT_EQ(provider->current_calls, 2);  // once per location in the first hour, not 120 times
  poller.PollOnce(kPollStart + absl::Hours(6));
  EXPECT_EQ(provider->current_calls, 4);
}

// Locations A (100) and B (200) of provider "fixed", each reading valid for 1 s; A always fails.
std::unique_ptr<CountingProvider> AFailsBAnswers(absl::Status failure) {
  StaticSettings settings;
  settings.grams_per_kwh = {{"A", 100}, {"B", 200}};
  settings.validity = absl::Seconds(1);
  auto provider = std::make_unique<CountingProvider>(
      std::make_unique<providers::StaticProvider>("fixed", settings));
  provider->fail_location["A"] = std::move(failure);
  return provider;
}

TEST_F(PollerTest, AFailingLocationStarvesNoOtherLocationOfItsProvider) {
  // A answers with errors for good; B, listed after it, must stay current.
  auto counting = AFailsBAnswers(absl::UnavailableError("<html>502 Bad Gateway</html>"));
  CountingProvider& provider = *counting;
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.backoff_initial = absl::Seconds(1);
  config_.backoff_max = absl::Seconds(8);
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  for (int second = 0; second < 24; ++second) {
    poller.PollOnce(kPollStart + absl::Seconds(second));
    EXPECT_THAT(Scrape(), HasSubstr(R"(location="B",provider="fixed"} 200)")) << second;
  }
  EXPECT_EQ(provider.calls_by_location["B"], 24);  // every reading, on time
  EXPECT_LE(provider.calls_by_location["A"], 8);   // A backs off on its own
  EXPECT_GE(provider.calls_by_location["A"], 4);
  EXPECT_EQ(poller.ProviderBlockedUntil("fixed"), absl::InfinitePast());
}

TEST_F(PollerTest, ASuccessElsewhereDoesNotResetAFailingLocationsBackoff) {
  auto counting = AFailsBAnswers(absl::UnavailableError("HTTP 503"));
  CountingProvider& provider = *counting;
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.backoff_initial = absl::Seconds(10);
  config_.backoff_max = absl::Hours(1);
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  const IntensitySeries a{"fixed", "A", EmissionsType::kAverage};
  absl::Time now = kPollStart;
  absl::Duration previous;
  for (int failure = 1; failure <= 5; ++failure) {
    poller.PollOnce(now);
    const absl::Duration pause = poller.SeriesBlockedUntil(a) - now;
    // 10 s × 2^(n−1) × [0.5, 1.5): grows although B succeeds in every poll.
    EXPECT_GE(pause, absl::Seconds(10) * (1 << (failure - 1)) * 0.5) << failure;
    if (failure > 2) {
      EXPECT_GT(pause, previous) << failure;
    }
    previous = pause;
    now += pause;
  }
}

TEST_F(PollerTest, RetryAfterCountsFromTheAnswerNotFromThePollsStart) {
  // The upstream takes 3 s to answer 429 with Retry-After: 5.
  auto provider = StaticCounting({{"A", 100}});
  absl::Status limited = absl::ResourceExhaustedError("HTTP 429");
  limited.SetPayload(providers::kRetryAfterPayload, absl::Cord("5"));
  provider->fail_with = limited;
  provider->clock = &clock_;
  provider->call_takes = absl::Seconds(3);
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart);
  EXPECT_EQ(poller.ProviderBlockedUntil("fixed"), kPollStart + absl::Seconds(3) + absl::Seconds(5));
  // Not called again before then.
  poller.PollOnce(kPollStart + absl::Seconds(7));
  EXPECT_EQ(provider->current_calls, 1);
  poller.PollOnce(kPollStart + absl::Seconds(8));
  EXPECT_EQ(provider->current_calls, 2);
}

TEST_F(PollerTest, BackoffCountsFromTheTimeout) {
  auto provider = StaticCounting({{"A", 100}});
  provider->fail_with = absl::DeadlineExceededError("timed out after 10 s");
  provider->clock = &clock_;
  provider->call_takes = absl::Seconds(10);
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.backoff_initial = absl::Seconds(2);
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart);
  const absl::Time until = poller.SeriesBlockedUntil({"fixed", "A", EmissionsType::kAverage});
  EXPECT_GE(until, kPollStart + absl::Seconds(10) + absl::Seconds(1));  // 2 s × [0.5, 1.5) after it
  EXPECT_LT(until, kPollStart + absl::Seconds(10) + absl::Seconds(3));
}

TEST_F(PollerTest, AStalledProviderDelaysNoOtherProvidersReading) {
  // "slow" is listed first and its upstream never answers until released.
  StaticSettings slow_settings, fast_settings;
  slow_settings.grams_per_kwh = {{"S", 1}};
  fast_settings.grams_per_kwh = {{"F", 2}};
  CountingProvider slow(std::make_unique<providers::StaticProvider>("slow", slow_settings));
  CountingProvider fast(std::make_unique<providers::StaticProvider>("fast", fast_settings));
  absl::Notification release, stop;
  slow.hold = &release;
  auto store = Open(":memory:");
  Poller poller({&slow, &fast}, *store, metrics_, config_);
  std::thread runner([&] { poller.Run(RealClock(), stop); });
  // Waits for an event, not for a time: the stall lasts until released.
  EXPECT_TRUE(testing::WaitFor(
      [&] { return Scrape().find(R"(location="F",provider="fast"} 2)") != std::string::npos; },
      absl::Seconds(30)));
  EXPECT_EQ(fast.current_calls, 1);
  EXPECT_THAT(Scrape(), Not(HasSubstr(R"(provider="slow")")));
  release.Notify();
  stop.Notify();
  runner.join();
}

TEST_F(PollerTest, AStalledPollLoopIsOverdueOnceItsPromiseHasPassed) {
  StaticSettings settings;
  settings.grams_per_kwh = {{"S", 1}};
  CountingProvider slow(std::make_unique<providers::StaticProvider>("slow", settings));
  absl::Notification release, held, stop;
  slow.hold = &release;
  slow.held = &held;
  config_.forecast_horizon = absl::ZeroDuration();
  auto store = Open(":memory:");
  Poller poller({&slow}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  ProgressMonitor progress;
  std::thread runner(
      [&] { poller.Run(clock_, stop, nullptr, &progress, /*longest_call=*/absl::Minutes(2)); });
  held.WaitForNotification();  // the poll of kPollStart is stuck in its one call
  // One location: kPollSlack (1 min) + 1 × 3 calls × 2 min.
  const absl::Time promise = kPollStart + absl::Minutes(7);
  EXPECT_THAT(progress.OverdueAt(promise), ::testing::IsEmpty());
  const std::vector<ProgressMonitor::Overdue> overdue =
      progress.OverdueAt(promise + absl::Seconds(1));
  ASSERT_EQ(overdue.size(), 1u);
  EXPECT_EQ(overdue[0].loop, "poll loop of slow");
  EXPECT_EQ(overdue[0].late, absl::Seconds(1));
  EXPECT_EQ(DescribeOverdue(overdue), "poll loop of slow (1s late)");
  stop.Notify();
  release.Notify();
  runner.join();
  EXPECT_THAT(progress.OverdueAt(absl::InfiniteFuture()), ::testing::IsEmpty())
      << "a loop that returned has no promise left";
}

TEST_F(PollerTest, ProviderSeriesAreCountedByWhatPausesThem) {
  // A: transient failure (backoff); B: a plan that lacks it (configuration error); C: answers.
  StaticSettings settings;
  settings.grams_per_kwh = {{"A", 1}, {"B", 2}, {"C", 3}};
  CountingProvider provider(std::make_unique<providers::StaticProvider>("fixed", settings));
  provider.fail_location["A"] = absl::UnavailableError("HTTP 503");
  provider.fail_location["B"] = absl::FailedPreconditionError("zone not in this token's plan");
  config_.forecast_horizon = absl::ZeroDuration();
  auto store = Open(":memory:");
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  EXPECT_THAT(poller.SeriesStates(), ::testing::IsEmpty());
  poller.PollOnce(kPollStart);
  const std::string scrape = Scrape();
  EXPECT_THAT(scrape, HasSubstr(R"(carbonroute_provider_series{provider="fixed",state="ok"} 1)"));
  EXPECT_THAT(scrape,
              HasSubstr(R"(carbonroute_provider_series{provider="fixed",state="backoff"} 1)"));
  EXPECT_THAT(scrape, HasSubstr(R"(carbonroute_provider_series{provider="fixed",)"
                                R"(state="configuration_error"} 1)"));
  EXPECT_THAT(scrape,
              HasSubstr(R"(carbonroute_provider_series{provider="fixed",state="rate_limited"} 0)"));
  SeriesStateCounts expected{};
  expected[static_cast<std::size_t>(SeriesState::kOk)] = 1;
  expected[static_cast<std::size_t>(SeriesState::kBackoff)] = 1;
  expected[static_cast<std::size_t>(SeriesState::kConfigurationError)] = 1;
  EXPECT_EQ(poller.SeriesStates().at("fixed"), expected);

  // An account-wide pause (HTTP 401) outranks each series' own.
  provider.fail_location.clear();
  provider.fail_with = absl::UnauthenticatedError("HTTP 401");
  poller.PollOnce(kPollStart +
                  absl::Hours(7));  // after every pause above, so C and the others are called
  EXPECT_THAT(Scrape(), HasSubstr(R"(carbonroute_provider_series{provider="fixed",)"
                                  R"(state="configuration_error"} 3)"));
}

TEST_F(PollerTest, EveryUpstreamCallIsCountedIncludingOnesTheProviderRetried) {
  auto provider = StaticCounting({{"A", 100}});
  provider->hidden_before = absl::UnauthenticatedError("HTTP 401: token expired");
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart);
  EXPECT_THAT(
      Scrape(),
      HasSubstr(
          R"(carbonroute_provider_requests_total{outcome="unauthenticated",provider="fixed"} 1)"));
  EXPECT_THAT(Scrape(),
              HasSubstr(R"(carbonroute_provider_requests_total{outcome="ok",provider="fixed"} 1)"));
}

TEST_F(PollerTest, AStopRequestEndsAPollBetweenTwoSeries) {
  std::map<std::string, double> values;
  for (int i = 0; i < 300; ++i) values[absl::StrCat("L", i)] = i;
  auto provider = StaticCounting(values);
  auto store = Open(":memory:");
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  absl::Notification stop;
  stop.Notify();
  poller.PollOnce(kPollStart, &stop);
  EXPECT_EQ(provider->current_calls, 0);
  poller.PollOnce(kPollStart);
  EXPECT_EQ(provider->current_calls, 300);
}

TEST_F(PollerTest, AShortStaticValidityStoresOneForecastRowPerLocation) {
  StaticSettings settings;
  settings.validity = absl::Seconds(1);
  for (int i = 0; i < 5; ++i) settings.grams_per_kwh[absl::StrCat("L", i)] = 100 + i;
  providers::StaticProvider provider("fixed", settings);
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::Hours(192);
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart + absl::Milliseconds(300));
  absl::StatusOr<std::vector<cache::IntensityRecord>> points = store->ForecastBetween(
      {"fixed", "L0", EmissionsType::kAverage}, kPollStart, kPollStart + absl::Hours(200));
  ASSERT_THAT(points, IsOk());
  EXPECT_EQ(points->size(), 1u);
  EXPECT_THAT(Scrape(), HasSubstr(R"(location="L0",provider="fixed",window="24h"} 100)"));
}

TEST_F(PollerTest, ARefusedRequestIsAConfigurationErrorNotAParseError) {
  auto provider = StaticCounting({{"A", 100}, {"B", 200}});
  net::HttpResponse refused;
  refused.status = 422;
  refused.body = R"({"error":"zone=XX is not a valid zone"})";
  provider->fail_location["A"] = providers::StatusFromHttp(refused, "fixed A", kPollStart);
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.config_error_retry = absl::Hours(6);
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  for (absl::Time now = kPollStart; now < kPollStart + absl::Hours(2); now += absl::Minutes(1)) {
    poller.PollOnce(now);
  }
  EXPECT_EQ(provider->calls_by_location["A"],
            1);  // paused config_error_retry, not retried on backoff
  EXPECT_THAT(
      Scrape(),
      HasSubstr(
          R"(carbonroute_provider_requests_total{outcome="bad_request",provider="fixed"} 1)"));
  EXPECT_THAT(Scrape(), Not(HasSubstr("parse_error")));
  // A malformed answer stays transient.
  absl::Status malformed = absl::InvalidArgumentError("fixed A: not JSON");
  EXPECT_EQ(OutcomeLabel(malformed), "parse_error");
}

}  // namespace
}  // namespace carbonroute::polling

namespace carbonroute::polling {
namespace {

TEST_F(PollerTest, FollowsLocationsGivenAtRunTime) {
  // A static provider knows A, B and C; the poller is told which to poll, by grid
  // location label → the provider's code.
  auto provider = StaticCounting({{"A", 100}, {"B", 200}, {"C", 300}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.grace = absl::Minutes(30);
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  ASSERT_THAT(poller.SetLocations("fixed", {}), IsOk());
  poller.PollOnce(kPollStart);
  EXPECT_EQ(provider->current_calls, 0);
  EXPECT_THAT(Scrape(), HasSubstr("carbonroute_provider_locations{provider=\"fixed\"} 0"));

  ASSERT_THAT(poller.SetLocations("fixed", {{"grid-a", "A"}, {"grid-b", "B"}}, 3), IsOk());
  EXPECT_THAT(poller.Locations("fixed"), ::testing::ElementsAre("grid-a", "grid-b"));
  poller.PollOnce(kPollStart + absl::Minutes(1));
  EXPECT_EQ(provider->calls_by_location["A"], 1);  // called with the code ...
  EXPECT_EQ(provider->calls_by_location["B"], 1);
  std::string page = Scrape();  // ... exported under the label
  EXPECT_THAT(page, HasSubstr("location=\"grid-a\",provider=\"fixed\"} 100"));
  EXPECT_THAT(page, HasSubstr("carbonroute_provider_locations{provider=\"fixed\"} 2"));
  EXPECT_THAT(page, HasSubstr("carbonroute_provider_unmapped_nodes{provider=\"fixed\"} 3"));

  // grid-a's last Node goes; grid-c comes.
  ASSERT_THAT(poller.SetLocations("fixed", {{"grid-b", "B"}, {"grid-c", "C"}}), IsOk());
  PollStats stats = poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(5));
  EXPECT_EQ(provider->calls_by_location["C"], 1);
  EXPECT_EQ(provider->calls_by_location["A"], 1);  // no longer called
  EXPECT_LE(stats.next_poll,
            kPollStart + absl::Hours(1) + absl::Minutes(35));  // wakes to remove it
  // Its reading ended at kPollStart + 1h: still exported within grace of it ...
  EXPECT_THAT(Scrape(), HasSubstr("location=\"grid-a\"")) << Scrape();
  // ... and every series of it is gone grace after it was dropped.
  poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(35));
  page = Scrape();
  EXPECT_THAT(page, Not(HasSubstr("location=\"grid-a\"")));
  EXPECT_THAT(page, HasSubstr("location=\"grid-c\",provider=\"fixed\"} 300"));
  EXPECT_EQ(provider->calls_by_location["A"], 1);

  EXPECT_EQ(poller.SetLocations("nobody", {}).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace carbonroute::polling

namespace carbonroute::polling {
namespace {

// A provider whose forecast covers the 24 hours from the current hour, as
// Electricity Maps' does: never now + 24 h once the hour has begun.
class DayAheadProvider final : public providers::Provider {
 public:
  const std::string& name() const override { return name_; }
  const std::vector<std::string>& locations() const override { return locations_; }
  EmissionsType emissions_type() const override { return EmissionsType::kAverage; }
  absl::StatusOr<providers::Reading> Current(absl::string_view, absl::Time now) override {
    return Point(Hour(now), 300);
  }
  absl::StatusOr<std::vector<providers::Reading>> Forecast(absl::string_view, absl::Time now,
                                                           absl::Duration) override {
    ++forecast_calls;
    std::vector<providers::Reading> points;
    for (int i = 0; i < 24; ++i) points.push_back(Point(Hour(now) + absl::Hours(i), 280));
    return points;
  }
  int forecast_calls = 0;

 private:
  static absl::Time Hour(absl::Time t) {
    return absl::FromUnixSeconds(absl::ToUnixSeconds(t) / 3600 * 3600);
  }
  static providers::Reading Point(absl::Time from, double value) {
    providers::Reading reading;
    reading.valid_from = from;
    reading.valid_to = from + absl::Hours(1);
    reading.value = value;
    return reading;
  }
  std::string name_ = "day-ahead";
  std::vector<std::string> locations_ = {"DE"};
};

TEST_F(PollerTest, AForecastShorterThanTheHorizonIsAskedAgainHourlyNotEveryQuarter) {
  DayAheadProvider provider;
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::Hours(24);
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  // Six hours polled every minute from 00:07: fetched at 00:07, then once its reach (24 h
  // from its first point) less an hour is no longer ahead, i.e. when the next hour is
  // due in it: at 01:01, 02:01, … 06:01.
  for (absl::Time t = kPollStart + absl::Minutes(7);
       t < kPollStart + absl::Hours(6) + absl::Minutes(7); t += absl::Minutes(1)) {
    poller.PollOnce(t);
  }
  EXPECT_EQ(provider.forecast_calls, 7);  // was 24: every 15 minutes
  // The 1 h and 4 h means stay exported throughout.
  EXPECT_THAT(Scrape(), HasSubstr("window=\"4h\"} 280"));
}

}  // namespace
}  // namespace carbonroute::polling

namespace carbonroute::polling {
namespace {

TEST_F(PollerTest, AgesAreTrueAtEveryScrapeThroughALongPause) {
  auto provider = StaticCounting({{"A", 100}});
  auto store = Open(":memory:");
  config_.forecast_horizon = absl::ZeroDuration();
  config_.grace = absl::Hours(8);
  Poller poller({provider.get()}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  poller.PollOnce(kPollStart + absl::Minutes(10));  // fetched at 00:10, valid to 01:00
  // The provider then fails with a configuration error: paused for 6 h, no poll writes the age.
  provider->fail_with = absl::PermissionDeniedError("not in the plan");
  poller.PollOnce(kPollStart + absl::Hours(1) + absl::Minutes(1));
  net::HttpHandler page =
      exporter::MetricsPageHandler(registry_, [&] { metrics_.RefreshAges(clock_.Now()); });
  auto age_in = [&](const std::string& body) {
    const std::string key =
        "carbonroute_carbon_intensity_age_seconds{emissions_type=\"average\",location=\"A\","
        "provider=\"fixed\"} ";
    const std::size_t at = body.find(key);
    return at == std::string::npos
               ? std::string("absent")
               : body.substr(at + key.size(), body.find('\n', at) - at - key.size());
  };
  clock_.Advance(absl::Hours(1) + absl::Minutes(20));  // 01:20 by the scrape's clock
  auto scrape = [&] {
    const net::HttpServerResponse response = page({});
    std::string body;
    char piece[4096];
    while (const std::size_t n = response.stream->Read(piece, sizeof(piece))) body.append(piece, n);
    return body;
  };
  EXPECT_EQ(age_in(scrape()), "4200");
  clock_.Advance(absl::Hours(2));  // no poll in between: the age still grows
  EXPECT_EQ(age_in(scrape()), "11400");
}

// Holds each current-reading call until `together` calls are in flight at
// once (or until one call has waited 30 s: a poller calling one location at a
// time then fails instead of hanging), and keeps the most ever in flight.
class GatheringProvider final : public providers::Provider {
 public:
  GatheringProvider(std::vector<std::string> locations, int together)
      : locations_(std::move(locations)), together_(together) {}
  const std::string& name() const override { return name_; }
  const std::vector<std::string>& locations() const override { return locations_; }
  EmissionsType emissions_type() const override { return EmissionsType::kAverage; }
  bool supports_forecast() const override { return false; }
  absl::StatusOr<providers::Reading> Current(absl::string_view, absl::Time now) override {
    absl::MutexLock lock(&mutex_);
    ++in_flight_;
    most_in_flight_ = std::max(most_in_flight_, in_flight_);
    if (in_flight_ >= together_) gathered_ = true;
    if (!mutex_.AwaitWithTimeout(absl::Condition(&gathered_), absl::Seconds(30))) gathered_ = true;
    --in_flight_;
    providers::Reading reading;
    reading.valid_from = now;
    reading.valid_to = now + absl::Hours(1);
    reading.value = 100;
    return reading;
  }
  absl::StatusOr<std::vector<providers::Reading>> Forecast(absl::string_view, absl::Time,
                                                           absl::Duration) override {
    return absl::UnimplementedError("no forecast");
  }
  int most_in_flight() const {
    absl::MutexLock lock(&mutex_);
    return most_in_flight_;
  }

 private:
  std::string name_ = "gathering";
  std::vector<std::string> locations_;
  const int together_;
  mutable absl::Mutex mutex_;
  int in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  int most_in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  bool gathered_ ABSL_GUARDED_BY(mutex_) = false;
};

TEST_F(PollerTest, PollsUpToConcurrentLocationsOfAProviderAtOnceAndNoMore) {
  // Seven locations, three at a time: the first three calls meet (a poller polling one
  // location at a time would have one in flight), and no fourth joins them.
  GatheringProvider provider({"A", "B", "C", "D", "E", "F", "G"}, /*together=*/3);
  auto store = Open(":memory:");
  config_.concurrent_locations = 3;
  Poller poller({&provider}, *store, metrics_, config_, /*jitter_seed=*/1, clock_);
  PollStats stats = poller.PollOnce(kPollStart);
  EXPECT_EQ(provider.most_in_flight(), 3);
  EXPECT_EQ(stats.provider_calls, 7);  // every location's call counted once, across the workers
  EXPECT_EQ(stats.exported_series, 7);
  EXPECT_EQ(stats.next_poll, kPollStart + config_.interval);
}

}  // namespace
}  // namespace carbonroute::polling
