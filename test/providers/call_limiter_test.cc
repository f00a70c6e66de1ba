#include "providers/call_limiter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "providers/http_status.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::providers {
namespace {

using ::testing::HasSubstr;

// Answers every request 200 and remembers when each was sent, by the clock.
class RecordingHttpClient final : public net::HttpClient {
 public:
  explicit RecordingHttpClient(Clock& clock) : clock_(clock) {}
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest& request) override {
    sent.push_back({clock_.Now(), absl::StrContains(request.url, "/login")});
    return net::HttpResponse{200, {}, "{}"};
  }
  struct Sent {
    absl::Time at;
    bool login;
  };
  std::vector<Sent> sent;

 private:
  Clock& clock_;
};

// The most calls of `times` (sorted) in any window [t, t + window).
int MostInWindow(const std::vector<absl::Time>& times, absl::Duration window) {
  int most = 0;
  std::size_t first = 0;
  for (std::size_t last = 0; last < times.size(); ++last) {
    while (times[last] - times[first] >= window) ++first;
    most = std::max(most, static_cast<int>(last - first + 1));
  }
  return most;
}

std::vector<absl::Time> Times(const std::vector<RecordingHttpClient::Sent>& sent, bool logins) {
  std::vector<absl::Time> times;
  for (const auto& call : sent) {
    if (!logins || call.login) times.push_back(call.at);
  }
  std::sort(times.begin(), times.end());
  return times;
}

ProviderConfig WattTime(int shared_by) {
  ProviderConfig config;
  config.type = ProviderType::kWattTime;
  config.limits.account_shared_by = shared_by;
  return config;
}

// Sends `calls` requests through `clients` in turn (every 7th a login), as
// a poller would: a held call is retried once its Retry-After has passed.
// Returns how many were held back.
int SendAll(std::vector<LimitedHttpClient*> clients, testing::FakeClock& clock, int calls) {
  int held = 0;
  for (int i = 0; i < calls; ++i) {
    net::HttpRequest request;
    request.url = i % 7 == 0 ? "http://127.0.0.1:1/login" : "http://127.0.0.1:1/v3/forecast?x=1";
    LimitedHttpClient& client = *clients[i % clients.size()];
    while (true) {
      absl::StatusOr<net::HttpResponse> response = client.Send(request);
      EXPECT_TRUE(response.ok());
      if (response->status == 200) break;
      ++held;
      absl::Status status = StatusFromHttp(*response, "test", clock.Now());
      EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
      EXPECT_TRUE(IsHeldBack(status));
      if (!RetryAfter(status).has_value()) {
        ADD_FAILURE() << "no Retry-After: " << status;
        return held;
      }
      clock.Advance(*RetryAfter(status));
    }
  }
  return held;
}

TEST(CallLimiter, TenThousandWattTimeCallsNeverExceedThePublishedLimits) {
  testing::FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  RecordingHttpClient upstream(clock);
  LimitedHttpClient client(upstream, PublishedLimits(WattTime(1)), clock);
  const int held = SendAll({&client}, clock, 10'000);
  ASSERT_EQ(upstream.sent.size(), 10'000u);
  const std::vector<absl::Time> all = Times(upstream.sent, false);
  const std::vector<absl::Time> logins = Times(upstream.sent, true);
  EXPECT_LE(MostInWindow(all, absl::Seconds(1)), 10);
  EXPECT_LE(MostInWindow(all, absl::Minutes(5)), 3000);
  EXPECT_LE(MostInWindow(logins, absl::Minutes(5)), 100);
  // The limits bind (the test could fail): 1,429 logins need ≥ 14 windows of 5 minutes.
  EXPECT_EQ(MostInWindow(logins, absl::Minutes(5)), 100);
  EXPECT_EQ(MostInWindow(all, absl::Seconds(1)), 10);
  EXPECT_GT(held, 0);
  EXPECT_GE(all.back() - all.front(), absl::Minutes(5) * (1429 / 100));
}

TEST(CallLimiter, TwoReplicasSharingAnAccountStayWithinItTogether) {
  testing::FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  RecordingHttpClient upstream(clock);  // the account: both replicas' calls
  LimitedHttpClient first(upstream, PublishedLimits(WattTime(2)), clock);
  LimitedHttpClient second(upstream, PublishedLimits(WattTime(2)), clock);
  SendAll({&first, &second}, clock, 10'000);
  ASSERT_EQ(upstream.sent.size(), 10'000u);
  EXPECT_LE(MostInWindow(Times(upstream.sent, false), absl::Seconds(1)), 10);
  EXPECT_LE(MostInWindow(Times(upstream.sent, false), absl::Minutes(5)), 3000);
  EXPECT_LE(MostInWindow(Times(upstream.sent, true), absl::Minutes(5)), 100);
}

// Tells whether each request it is sent may be cancelled, and whether it is now.
class CancellationProbe final : public net::HttpClient {
 public:
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest& request) override {
    cancellable = static_cast<bool>(request.cancelled);
    cancelled = cancellable && request.cancelled();
    return net::HttpResponse{200, {}, "{}"};
  }
  bool cancellable = false;
  bool cancelled = false;
};

TEST(CallLimiter, CallsEndWithTheStopTheyAreGiven) {
  testing::FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  CancellationProbe upstream;
  LimitedHttpClient client(upstream, PublishedLimits(WattTime(1)), clock);
  net::HttpRequest request;
  request.url = "http://127.0.0.1:1/v3/forecast?region=CAISO_NORTH";
  ASSERT_EQ(client.Send(request)->status, 200);
  EXPECT_FALSE(upstream.cancellable);  // nothing to end it before a stop is given
  absl::Notification stop;
  client.CancelWhen(stop);
  ASSERT_EQ(client.Send(request)->status, 200);
  EXPECT_TRUE(upstream.cancellable);
  EXPECT_FALSE(upstream.cancelled);
  stop.Notify();
  (void)client.Send(request);
  EXPECT_TRUE(upstream.cancelled);
  // A request's own cancellation is kept.
  request.cancelled = [] { return false; };
  (void)client.Send(request);
  EXPECT_FALSE(upstream.cancelled);
}

TEST(CallLimiter, HeldCallSaysWhichLimitAndWhen) {
  testing::FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  RecordingHttpClient upstream(clock);
  LimitedHttpClient client(upstream, PublishedLimits(WattTime(1)), clock);
  net::HttpRequest login;
  login.url = "http://127.0.0.1:1/login";
  // 100 logins pass (10 a second, the clock moved by the limiter's waits) ...
  for (int i = 0; i < 100; ++i) ASSERT_EQ(client.Send(login)->status, 200);
  // ... the 101st is held until the first is 5 minutes old.
  absl::StatusOr<net::HttpResponse> held = client.Send(login);
  ASSERT_EQ(held->status, 429);
  EXPECT_THAT(held->body, HasSubstr("100 logins per 5 minutes"));
  absl::Status status = StatusFromHttp(*held, "watttime login", clock.Now());
  EXPECT_TRUE(IsHeldBack(status));
  EXPECT_GT(*RetryAfter(status), absl::Minutes(4));
  EXPECT_LE(*RetryAfter(status), absl::Minutes(5));
  EXPECT_EQ(upstream.sent.size(), 100u);
  // A request that is not a login is not held by the login limit.
  net::HttpRequest data;
  data.url = "http://127.0.0.1:1/v3/forecast?region=CAISO_NORTH&login=x";
  EXPECT_EQ(client.Send(data)->status, 200);
}

TEST(CallLimiter, MonthlyBudgetIsSpreadOverTheMonth) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const absl::Time month_start = absl::FromCivil(absl::CivilSecond(2026, 11, 1, 0, 0, 0), utc);
  const absl::Time month_end = absl::FromCivil(absl::CivilSecond(2026, 12, 1, 0, 0, 0), utc);
  testing::FakeClock clock(month_start);
  ProviderConfig config;
  config.type = ProviderType::kElectricityMaps;
  config.limits.monthly_budget = 3000;
  RecordingHttpClient upstream(clock);
  LimitedHttpClient client(upstream, PublishedLimits(config), clock);
  EXPECT_EQ(client.limiter().BudgetLeft(clock.Now()), 3000);
  net::HttpRequest request;
  request.url = "http://127.0.0.1:1/v3/carbon-intensity/latest?zone=DE";
  // 10,000 calls wanted as fast as the limiter lets them through.
  int sent_in_month = 0;
  for (int i = 0; i < 10'000 && clock.Now() < month_end; ++i) {
    absl::StatusOr<net::HttpResponse> response = client.Send(request);
    if (response->status == 200) {
      ++sent_in_month;
      continue;
    }
    absl::Status status = StatusFromHttp(*response, "em", clock.Now());
    ASSERT_TRUE(RetryAfter(status).has_value());
    clock.Advance(*RetryAfter(status));
  }
  std::vector<absl::Time> times = Times(upstream.sent, false);
  int in_month = 0;
  for (absl::Time t : times) in_month += t < month_end ? 1 : 0;
  EXPECT_EQ(in_month, 3000);  // the whole budget, never more
  // Spread: by each call, at most the even pace plus a day's share (100).
  for (std::size_t i = 0; i < times.size() && times[i] < month_end; ++i) {
    const double fraction = absl::FDivDuration(times[i] - month_start, month_end - month_start);
    EXPECT_LE(static_cast<double>(i + 1), 3000 * fraction + 100 + 1e-9) << i;
  }
  // The first day's calls: the burst and the day's pace, not the month's budget.
  const int first_day = static_cast<int>(std::count_if(
      times.begin(), times.end(), [&](absl::Time t) { return t < month_start + absl::Hours(24); }));
  EXPECT_LE(first_day, 200);
  EXPECT_GE(first_day, 100);
}

TEST(CallLimiter, CallsOfThisMonthBeforeARestartCountAgainstTheBudget) {
  ProviderConfig config;
  config.type = ProviderType::kElectricityMaps;
  config.limits.monthly_budget = 3000;
  CallLimiter limiter(PublishedLimits(config));
  const absl::Time now =
      absl::FromCivil(absl::CivilSecond(2026, 11, 25, 8, 0, 0), absl::UTCTimeZone());
  const absl::Time month = CalendarMonthStart(now);
  EXPECT_EQ(month, absl::FromCivil(absl::CivilMonth(2026, 11), absl::UTCTimeZone()));
  limiter.SeedMonth(month, 2900);
  EXPECT_EQ(limiter.BudgetLeft(now), 100);
  // The pace by the 25th (80 % of the month, 2,400 + a day's 100) is behind: held till later.
  EXPECT_GT(limiter.EarliestCall(now, false), now);
  // Last month's calls do not count this month.
  CallLimiter fresh(PublishedLimits(config));
  fresh.SeedMonth(CalendarMonthStart(month - absl::Hours(1)), 2900);
  EXPECT_EQ(fresh.BudgetLeft(now), 3000);
  EXPECT_EQ(fresh.EarliestCall(now, false), now);
}

TEST(CallLimiter, ProvidersWithoutPublishedLimitsAreNotLimited) {
  ProviderConfig uk;
  uk.type = ProviderType::kUkCarbonIntensity;
  CallLimiter limiter(PublishedLimits(uk));
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(limiter.EarliestCall(now, false), now);
    limiter.Record(now, false);
  }
  EXPECT_EQ(limiter.BudgetLeft(now), std::nullopt);
}

}  // namespace
}  // namespace carbonroute::providers
