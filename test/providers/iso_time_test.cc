#include "providers/iso_time.h"

#include <gtest/gtest.h>

namespace carbonroute::providers {
namespace {

absl::Time Reference(const char* text) {
  absl::Time t;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, text, &t, &error)) << error;
  return t;
}

TEST(ParseIsoTime, AgreesWithAbslParseTimeOnProviderForms) {
  for (const char* text : {"2022-07-15T00:00:00+00:00", "2024-03-06T19:00:00.000Z",
                           "2024-03-06T18:48:27.926Z", "2020-02-29T23:59:59Z",
                           "2021-06-01T12:00:00-05:30", "2021-06-01T12:00:00.123456789+02:00"}) {
    absl::Time fast;
    ASSERT_TRUE(ParseIsoTime(text, fast)) << text;
    EXPECT_EQ(fast, Reference(text)) << text;
  }
}

TEST(ParseIsoTime, MinutesOnlyUkForm) {
  absl::Time t;
  ASSERT_TRUE(ParseIsoTime("2018-01-20T12:00Z", t));
  EXPECT_EQ(t, Reference("2018-01-20T12:00:00Z"));
}

TEST(ParseIsoTime, RejectsOtherLayoutsAndImpossibleDates) {
  absl::Time t;
  for (const char* text :
       {"", "2022-07-15", "2022-07-15 00:00:00Z", "2022-07-15T00:00:00", "2022-13-01T00:00:00Z",
        "2021-02-29T00:00:00Z", "2022-07-15T24:00:00Z", "2022-07-15T00:00:00+0000",
        "2022-07-15T00:00:00Zjunk", "2022-07-15T00:00:00.Z", "yesterday"}) {
    EXPECT_FALSE(ParseIsoTime(text, t)) << text;
  }
}

}  // namespace
}  // namespace carbonroute::providers
