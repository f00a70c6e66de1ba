// File: test/testing/counting_provider.h
//
// Wraps a real Provider, counts the calls that reach it and can be told to
// fail (every location, or one) and to take time (on a FakeClock): what the
// caching-policy tests assert on.
#ifndef CARBONROUTE_TEST_TESTING_COUNTING_PROVIDER_H_
#define CARBONROUTE_TEST_TESTING_COUNTING_PROVIDER_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "providers/provider.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::testing {

class CountingProvider final : public providers::Provider {
 public:
  explicit CountingProvider(std::unique_ptr<providers::Provider> inner)
      : inner_(std::move(inner)) {}

  const std::string& name() const override { return inner_->name(); }
  const std::vector<std::string>& locations() const override { return inner_->locations(); }
  EmissionsType emissions_type() const override { return inner_->emissions_type(); }

  absl::StatusOr<providers::Reading> Current(absl::string_view location, absl::Time now) override {
    ++current_calls;
    {
      absl::MutexLock lock(&mutex_);
      ++calls_by_location[std::string(location)];
    }
    if (held != nullptr) held->Notify();
    if (hold != nullptr) hold->WaitForNotification();
    if (clock != nullptr) clock->Advance(call_takes);
    if (!hidden_before.ok()) ReportHiddenCall(hidden_before);  // e.g. a 401 before a re-login
    if (!fail_with.ok()) return fail_with;
    if (auto it = fail_location.find(std::string(location)); it != fail_location.end()) {
      return it->second;
    }
    return inner_->Current(location, now);
  }
  absl::StatusOr<std::vector<providers::Reading>> Forecast(absl::string_view location,
                                                           absl::Time now,
                                                           absl::Duration horizon) override {
    ++forecast_calls;
    if (hold != nullptr) hold->WaitForNotification();
    if (clock != nullptr) clock->Advance(call_takes);
    if (!fail_with.ok()) return fail_with;
    return inner_->Forecast(location, now, horizon);
  }

  // Counted from the poller's concurrent location polls; read them once the poll returned.
  std::atomic<int> current_calls = 0;
  std::atomic<int> forecast_calls = 0;
  std::map<std::string, int> calls_by_location;  // current readings
  absl::Status fail_with;                        // returned by every call while not OK
  absl::Status hidden_before;  // while not OK, reported as a hidden call before each Current
  std::map<std::string, absl::Status> fail_location;  // current readings of one location
  absl::Notification* hold = nullptr;  // when set, every call waits for it (a stalled upstream)
  absl::Notification* held = nullptr;  // when set, notified by the first current-reading call
  FakeClock* clock = nullptr;          // when set, every call advances it by call_takes
  absl::Duration call_takes;

 private:
  std::unique_ptr<providers::Provider> inner_;
  absl::Mutex mutex_;  // calls_by_location, while a poll runs
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_COUNTING_PROVIDER_H_
