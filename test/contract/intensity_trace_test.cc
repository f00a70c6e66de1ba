#include "contract/intensity_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

TEST(IntensityTrace, MalformedFilesNameLineAndValue) {
  EXPECT_THAT(IntensityTrace::Parse("time,A\n", "t.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "t.csv:1: header must be \"datetime\" followed by zone codes"));
  EXPECT_THAT(IntensityTrace::Parse("datetime,A\n2022-01-01T00:00:00Z,x\n", "t.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "t.csv:2: zone A: \"x\" is not a non-negative number"));
  EXPECT_THAT(IntensityTrace::Parse("datetime,A\n2022-01-01T00:00:00Z,1,2\n", "t.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, "t.csv:2: expected 2 cells, got 3"));
  EXPECT_THAT(
      IntensityTrace::Parse("datetime,A\n2022-01-01T00:00:00Z,1\n2022-01-01T02:00:00Z,1\n",
                            "t.csv"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "t.csv:3: datetime \"2022-01-01T02:00:00Z\" is not the hour after the previous row"));
  EXPECT_THAT(IntensityTrace::Parse("datetime,A\n2022-03-01T00:00:00Z,1\n", "t.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must start at 00:00 UTC on January 1")));
  EXPECT_THAT(IntensityTrace::Parse("datetime,A\nyesterday,1\n", "t.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:2: datetime \"yesterday\" is not RFC 3339")));
  EXPECT_THAT(IntensityTrace::Load("/nonexistent.csv"),
              StatusIs(absl::StatusCode::kNotFound,
                       "cannot read trace file \"/nonexistent.csv\": No such file or directory"));
}

TEST(IntensityTrace, TraceHourMapsAnyYearOntoTheTraceYear) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Parse(
      "datetime,A\n2022-01-01T00:00:00Z,1\n2022-01-01T01:00:00Z,2\n", "t.csv");
  ASSERT_THAT(trace, IsOk());
  EXPECT_EQ(trace->year(), 2022);
  EXPECT_EQ(trace->hours(), 2u);
  const absl::Time jan1_1am_2030 =
      absl::FromCivil(absl::CivilHour(2030, 1, 1, 1), absl::UTCTimeZone());
  EXPECT_EQ(trace->TraceHour(jan1_1am_2030), 1u);
  // Past the trace's last row: its last row.
  EXPECT_EQ(trace->TraceHour(jan1_1am_2030 + absl::Hours(5)), 1u);
}

}  // namespace
}  // namespace carbonroute
