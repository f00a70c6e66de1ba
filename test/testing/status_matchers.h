// File: test/testing/status_matchers.h
//
// StatusIs(code, message_matcher) and IsOk() for absl::Status and
// absl::StatusOr<T>, IsOkAndHolds(value_matcher) for absl::StatusOr<T>: Debian's Abseil (20220623)
// predates absl/status/status_matchers.h (20240722).
#ifndef CARBONROUTE_TEST_TESTING_STATUS_MATCHERS_H_
#define CARBONROUTE_TEST_TESTING_STATUS_MATCHERS_H_

#include <gmock/gmock.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace carbonroute::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has status code " + ::testing::PrintToString(code) + " and a message that " +
               ::testing::DescribeMatcher<std::string>(message_matcher)) {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "whose status is " << status.ToString();
  return status.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "whose status is " << status.ToString();
  return status.ok();
}

MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a value that matches") {
  if (!arg.ok()) {
    *result_listener << "whose status is " << arg.status().ToString();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_STATUS_MATCHERS_H_
