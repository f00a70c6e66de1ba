#include "providers/call_limiter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "providers/watttime_provider.h"

namespace carbonroute::providers {

absl::Time CalendarMonthStart(absl::Time t) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  return absl::FromCivil(absl::CivilMonth(absl::ToCivilSecond(t, utc)), utc);
}

namespace {

// WattTime's published limits (https://docs.watttime.org, "Introduction").
constexpr int kWattTimeRequestsPerSecond = 10;
constexpr int kWattTimeRequestsPerFiveMinutes = 3000;
constexpr int kWattTimeLoginsPerFiveMinutes = 100;

WindowLimit Shared(int calls, absl::Duration window, int shared_by, absl::string_view what,
                   absl::string_view per) {
  const int share = std::max(1, calls / std::max(1, shared_by));
  std::string description = absl::StrCat(share, " ", what, " per ", per);
  if (shared_by > 1)
    absl::StrAppend(&description, " (1/", shared_by, " of the account's ", calls, ")");
  return {share, window, std::move(description)};
}

absl::Time NextMonthStart(absl::Time t) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  return absl::FromCivil(absl::CivilMonth(absl::ToCivilSecond(t, utc)) + 1, utc);
}

// The calls a monthly `budget` may run ahead of the even pace: a day's share.
int64_t DayShare(int64_t budget) { return std::max<int64_t>(1, budget / 30); }

// How many calls of a monthly `budget` may have been made by `t`: the even
// pace plus a day's share, never more than the budget.
int64_t Allowance(int64_t budget, absl::Time t) {
  const absl::Time start = CalendarMonthStart(t);
  const double fraction = absl::FDivDuration(t - start, NextMonthStart(t) - start);
  return std::min(budget, static_cast<int64_t>(std::floor(static_cast<double>(budget) * fraction)) +
                              DayShare(budget));
}

// The earliest time ≥ now at which every window of `limits` has room for one more call.
absl::Time WindowsEarliest(const std::vector<WindowLimit>& limits,
                           const std::vector<std::deque<absl::Time>>& calls, absl::Time now,
                           std::string* why) {
  absl::Time earliest = now;
  for (std::size_t i = 0; i < limits.size(); ++i) {
    if (static_cast<int>(calls[i].size()) < limits[i].calls) continue;
    const absl::Time room = calls[i].front() + limits[i].window;
    if (room > earliest) {
      earliest = room;
      if (why != nullptr) *why = limits[i].description;
    }
  }
  return earliest;
}

void Count(const std::vector<WindowLimit>& limits, std::vector<std::deque<absl::Time>>& calls,
           absl::Time at) {
  for (std::size_t i = 0; i < limits.size(); ++i) {
    calls[i].push_back(at);
    while (static_cast<int>(calls[i].size()) > limits[i].calls) calls[i].pop_front();
  }
}

}  // namespace

void CallLimiter::SeedMonth(absl::Time month, int64_t calls) {
  absl::MutexLock lock(&mutex_);
  if (month_start_ != absl::InfinitePast() && month_start_ > month) return;
  if (month_start_ != month) {
    month_start_ = month;
    month_calls_ = 0;
  }
  month_calls_ += calls;
}

AccountLimits PublishedLimits(const ProviderConfig& config) {
  AccountLimits limits;
  const int shared_by = config.limits.account_shared_by;
  switch (config.type) {
    case ProviderType::kWattTime:
      limits.requests = {
          Shared(kWattTimeRequestsPerSecond, absl::Seconds(1), shared_by, "requests", "second"),
          Shared(kWattTimeRequestsPerFiveMinutes, absl::Minutes(5), shared_by, "requests",
                 "5 minutes")};
      limits.logins = {Shared(kWattTimeLoginsPerFiveMinutes, absl::Minutes(5), shared_by, "logins",
                              "5 minutes")};
      limits.login_path = kWattTimeLoginPath;
      break;
    case ProviderType::kElectricityMaps:
      if (config.limits.monthly_budget > 0) {
        limits.monthly_budget =
            std::max<int64_t>(1, config.limits.monthly_budget / std::max(1, shared_by));
      }
      break;
    case ProviderType::kReplay:
    case ProviderType::kStatic:
    case ProviderType::kUkCarbonIntensity:
      break;
  }
  return limits;
}

int64_t CallLimiter::CallsThisMonth(absl::Time now) const {
  return CalendarMonthStart(now) == month_start_ ? month_calls_ : 0;
}

absl::Time CallLimiter::EarliestCall(absl::Time now, bool login, std::string* why) const {
  absl::MutexLock lock(&mutex_);
  absl::Time earliest = WindowsEarliest(limits_.requests, request_calls_, now, why);
  if (login) {
    std::string login_why;
    const absl::Time login_earliest =
        WindowsEarliest(limits_.logins, login_calls_, now, &login_why);
    if (login_earliest > earliest) {
      earliest = login_earliest;
      if (why != nullptr) *why = login_why;
    }
  }
  const int64_t budget = limits_.monthly_budget;
  if (budget <= 0) return earliest;
  const int64_t used = CallsThisMonth(earliest);
  absl::Time paced = earliest;
  if (used >= budget) {
    paced = NextMonthStart(earliest);
  } else if (used >= Allowance(budget, earliest)) {
    // The first whole second at which the pace allows call `used + 1`.
    const absl::Time start = CalendarMonthStart(earliest);
    const double fraction =
        static_cast<double>(used - DayShare(budget) + 1) / static_cast<double>(budget);
    paced = start + absl::Seconds(std::ceil(
                        absl::ToDoubleSeconds(fraction * (NextMonthStart(earliest) - start))));
    while (Allowance(budget, paced) <= used) paced += absl::Seconds(1);
  }
  if (paced > earliest) {
    earliest = paced;
    if (why != nullptr) {
      *why = absl::StrCat("monthly budget of ", budget, " calls, ", used,
                          " used: calls are spread over the month");
    }
  }
  return earliest;
}

void CallLimiter::Record(absl::Time at, bool login) {
  absl::MutexLock lock(&mutex_);
  Count(limits_.requests, request_calls_, at);
  if (login) Count(limits_.logins, login_calls_, at);
  const absl::Time month = CalendarMonthStart(at);
  if (month != month_start_) {
    month_start_ = month;
    month_calls_ = 0;
  }
  ++month_calls_;
}

std::optional<int64_t> CallLimiter::BudgetLeft(absl::Time now) const {
  if (limits_.monthly_budget <= 0) return std::nullopt;
  absl::MutexLock lock(&mutex_);
  return std::max<int64_t>(0, limits_.monthly_budget - CallsThisMonth(now));
}

LimitedHttpClient::LimitedHttpClient(net::HttpClient& inner, AccountLimits limits, Clock& clock,
                                     std::function<void(const LimitedCall&)> observer)
    : inner_(inner),
      login_path_(limits.login_path),
      limiter_(std::move(limits)),
      clock_(clock),
      observer_(std::move(observer)) {}

absl::StatusOr<net::HttpResponse> LimitedHttpClient::Send(const net::HttpRequest& request) {
  const absl::string_view path =
      absl::string_view(request.url).substr(0, std::min(request.url.size(), request.url.find('?')));
  const bool login = !login_path_.empty() && absl::EndsWith(path, login_path_);
  absl::Time now, at;
  LimitedCall call;
  call.monthly_budget = limiter_.monthly_budget();
  {
    absl::MutexLock lock(&send_mutex_);
    now = clock_.Now();
    std::string why;
    at = std::max(limiter_.EarliestCall(now, login, &why), last_reserved_);
    if (at - now > kLongestWait) {
      call.held = true;
      call.retry_after = absl::Ceil(at - now, absl::Seconds(1));
      call.why = std::move(why);
      call.budget_left = limiter_.BudgetLeft(now);
    } else {
      limiter_.Record(at, login);
      last_reserved_ = at;
      call.at = at;
      call.budget_left = limiter_.BudgetLeft(at);
    }
  }
  if (observer_) observer_(call);
  if (call.held) {
    const int64_t seconds = absl::ToInt64Seconds(call.retry_after);
    net::HttpResponse held;
    held.status = 429;
    held.headers["retry-after"] = absl::StrCat(seconds);
    held.headers[kHeldHeader] = call.why;
    held.body = absl::StrCat("not sent: carbonroute's client-side limit (", call.why,
                             ") allows the next call in ", seconds, " s");
    return held;
  }
  absl::Notification* stop = stop_.load();
  if (at > now) {
    absl::Notification never;
    if (clock_.WaitUntil(at, stop != nullptr ? *stop : never)) {
      return absl::CancelledError("stopped while waiting for the client-side limit");
    }
  }
  if (stop == nullptr || request.cancelled) return inner_.Send(request);
  net::HttpRequest cancellable = request;
  cancellable.cancelled = [stop] { return stop->HasBeenNotified(); };
  return inner_.Send(cancellable);
}

}  // namespace carbonroute::providers
