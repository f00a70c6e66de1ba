// File: providers/call_limiter.h
//
// Client-side limits per provider account, so that no configuration and no
// number of Nodes takes the collector over a provider's published limits.
//
//   WattTime (https://docs.watttime.org, "Introduction", rate limits): at most
//     3,000 requests in any 5-minute rolling window per user, and 100 in 5
//     minutes to /login. Kept as 10 requests in any second (well inside
//     3,000/5 min = 10/s on average, with no burst above it) and 100 logins
//     in any 5 minutes.
//   Electricity Maps (https://portal.electricitymaps.com, plans): calls are
//     counted per calendar month; the budget is configured
//     (`monthly_budget`) because it depends on the plan.
//   Each limit is divided by `account_shared_by`: the carbon role's two
//   replicas each keep to half, so together they stay within the account's.
//
// CallLimiter keeps the times of recent calls and says when the next may be
// made. A monthly budget is spread over the month: by a fraction f of the
// month, at most budget × f + budget / 30 calls (a day's share ahead of the
// even pace, so a start-up burst passes), and never more than the budget;
// as the account nears the pace, calls are held until the pace catches up.
//
// LimitedHttpClient applies a CallLimiter to one provider's requests: a call
// allowed within kLongestWait is delayed until then (on the Clock) and sent;
// one that would wait longer is not sent and answered 429 with Retry-After
// and the header kHeldHeader, which the provider turns into
// kResourceExhausted like the provider's own 429 (providers/http_status.h,
// IsHeldBack), so the poller pauses the provider until then.
//
// Thread safety: both are safe for concurrent use.
#ifndef CARBONROUTE_PROVIDERS_CALL_LIMITER_H_
#define CARBONROUTE_PROVIDERS_CALL_LIMITER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "config/collector_config.h"
#include "net/http_client.h"

namespace carbonroute::providers {

// At most `calls` calls in any window of length `window` (a rolling window).
struct WindowLimit {
  int calls = 0;
  absl::Duration window;
  std::string description;  // "10 requests per second", for logs
};

struct AccountLimits {
  std::vector<WindowLimit> requests;  // every request, logins included
  std::vector<WindowLimit> logins;    // requests to the login endpoint only
  int64_t monthly_budget = 0;         // calls per calendar month (UTC); 0 = none
  // A request whose URL path ends in this is a login ("/login": WattTime,
  // watttime_provider.h kWattTimeLoginPath); "" = the provider has none.
  std::string login_path;
};

// The published limits of `config`'s provider type (none for replay, static
// and UK Carbon Intensity, which publishes none), each divided by
// limits.account_shared_by (rounded down, at least 1).
AccountLimits PublishedLimits(const ProviderConfig& config);

class CallLimiter {
 public:
  explicit CallLimiter(AccountLimits limits) : limits_(std::move(limits)) {}

  // The earliest time ≥ `now` at which a call (a login if `login`) keeps every
  // limit; `why` (if given) receives the description of the limit that holds it.
  absl::Time EarliestCall(absl::Time now, bool login, std::string* why = nullptr) const;
  // Counts a call made at `at` (not earlier than the calls counted before it).
  void Record(absl::Time at, bool login);

  // Counts `calls` already made in the month starting at `month` (a restart
  // reads them from the cache), unless calls of a later month were counted.
  void SeedMonth(absl::Time month, int64_t calls);

  // The monthly budget and the calls left of it in the month of `now`
  // (nullopt without a budget).
  std::optional<int64_t> BudgetLeft(absl::Time now) const;
  int64_t monthly_budget() const { return limits_.monthly_budget; }

 private:
  // Calls made in the month of `now` (0 when the last counted call was in an earlier month).
  int64_t CallsThisMonth(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const AccountLimits limits_;
  mutable absl::Mutex mutex_;
  // Per limit of limits_.requests (limits_.logins): the times of its last
  // `calls` calls, oldest first.
  std::vector<std::deque<absl::Time>> request_calls_ ABSL_GUARDED_BY(mutex_) =
      std::vector<std::deque<absl::Time>>(limits_.requests.size());
  std::vector<std::deque<absl::Time>> login_calls_ ABSL_GUARDED_BY(mutex_) =
      std::vector<std::deque<absl::Time>>(limits_.logins.size());
  absl::Time month_start_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  int64_t month_calls_ ABSL_GUARDED_BY(mutex_) = 0;
};

// The start of the calendar month (UTC) of `t`: what a monthly budget counts in.
absl::Time CalendarMonthStart(absl::Time t);

// What LimitedHttpClient tells its observer of every call.
struct LimitedCall {
  bool held = false;           // not sent
  absl::Time at;               // sent: when (after any wait)
  absl::Duration retry_after;  // held: when it may be sent
  std::string why;             // held: the limit's description
  // The budget and the calls left of it this month, after this call (no budget: 0 and nullopt).
  int64_t monthly_budget = 0;
  std::optional<int64_t> budget_left;
};

class LimitedHttpClient final : public net::HttpClient {
 public:
  // The longest a call is delayed before being sent; longer, it is held back.
  static constexpr absl::Duration kLongestWait = absl::Seconds(1);
  // The header of the 429 answer made up for a call held back.
  static constexpr char kHeldHeader[] = "x-carbonroute-held-by";

  // Borrows `inner` and `clock`, which must outlive it. A request whose URL
  // path ends in `limits.login_path` is a login.
  // `observer` (may be empty) is told of every call, sent or held back, on the calling thread.
  LimitedHttpClient(net::HttpClient& inner, AccountLimits limits, Clock& clock,
                    std::function<void(const LimitedCall&)> observer = {});

  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest& request) override;

  // From now on, a request sent (or waiting for its turn) ends once `stop`
  // is notified (net::HttpRequest::cancelled; kCancelled within about a
  // second), unless it brings a `cancelled` of its own: a collector told to
  // stop does not wait out an upstream that never answers. `stop` must
  // outlive the calls. Any thread.
  void CancelWhen(absl::Notification& stop) { stop_.store(&stop); }

  const CallLimiter& limiter() const { return limiter_; }
  CallLimiter& limiter() { return limiter_; }

 private:
  net::HttpClient& inner_;
  const std::string login_path_;  // before limiter_, which takes the limits it is read from
  CallLimiter limiter_;
  Clock& clock_;
  const std::function<void(const LimitedCall&)> observer_;
  absl::Mutex send_mutex_;  // one reservation at a time: the limiter's check and count
  absl::Time last_reserved_ ABSL_GUARDED_BY(send_mutex_) = absl::InfinitePast();
  std::atomic<absl::Notification*> stop_ = nullptr;
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_CALL_LIMITER_H_
