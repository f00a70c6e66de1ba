#include "providers/replay_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "contract/intensity_trace.h"
#include "test/testing/status_matchers.h"
#include "test/testing/trace_csv.h"

namespace carbonroute::providers {
namespace {

using testing::IsOk;
using testing::StatusIs;

absl::Time Utc(int y, int mo, int d, int h, int mi = 0) {
  return absl::FromCivil(absl::CivilMinute(y, mo, d, h, mi), absl::UTCTimeZone());
}

using testing::TraceCsv;

class ReplayProviderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<IntensityTrace> trace = IntensityTrace::Load(testing::TraceCsvPath());
    ASSERT_THAT(trace, IsOk());
    trace_ = new std::shared_ptr<const IntensityTrace>(
        std::make_shared<const IntensityTrace>(*std::move(trace)));
    csv_ = new TraceCsv();
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete csv_;
  }
  std::unique_ptr<ReplayProvider> Make(const std::vector<std::string>& locations) {
    absl::StatusOr<std::unique_ptr<ReplayProvider>> provider =
        ReplayProvider::Create("replay", *trace_, locations);
    EXPECT_THAT(provider, IsOk());
    return provider.ok() ? *std::move(provider) : nullptr;
  }

  static std::shared_ptr<const IntensityTrace>* trace_;
  static TraceCsv* csv_;
};
std::shared_ptr<const IntensityTrace>* ReplayProviderTest::trace_ = nullptr;
TraceCsv* ReplayProviderTest::csv_ = nullptr;

TEST_F(ReplayProviderTest, TraceShape) {
  EXPECT_EQ((*trace_)->zones().size(), 123u);
  EXPECT_EQ((*trace_)->hours(), 8759u);  // ends 2022-12-31T22:00Z
  EXPECT_EQ((*trace_)->year(), 2022);
  EXPECT_EQ(csv_->last_datetime(), "2022-12-31T22:00:00Z");
}

TEST_F(ReplayProviderTest, ValueAtSameUtcHourOfYearEqualsCsv) {
  auto provider = Make({"DE", "FR", "BE", "US-CAL-CISO"});
  struct Case {
    absl::Time now;
    const char* row;
  } cases[] = {
      {Utc(2022, 1, 1, 0), "2022-01-01T00:00:00Z"},
      {Utc(2026, 11, 22, 1, 30), "2022-11-22T01:00:00Z"},
      {Utc(2025, 7, 4, 13, 59), "2022-07-04T13:00:00Z"},
      {Utc(2024, 3, 1, 0), "2022-03-01T00:00:00Z"},  // leap year: March 1 stays March 1
      {Utc(2024, 12, 30, 5), "2022-12-30T05:00:00Z"},
  };
  for (const Case& c : cases) {
    for (const char* zone : {"DE", "FR", "BE", "US-CAL-CISO"}) {
      absl::StatusOr<Reading> reading = provider->Current(zone, c.now);
      ASSERT_THAT(reading, IsOk());
      EXPECT_EQ(reading->value, csv_->At(c.row, zone)) << zone << " at " << c.row;
      EXPECT_FALSE(reading->estimated);
      EXPECT_TRUE(reading->Covers(c.now));
      EXPECT_EQ(reading->valid_to - reading->valid_from, absl::Hours(1));
    }
  }
}

TEST_F(ReplayProviderTest, February29ReusesFebruary28) {
  auto provider = Make({"DE"});
  absl::StatusOr<Reading> reading = provider->Current("DE", Utc(2024, 2, 29, 10, 15));
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->value, csv_->At("2022-02-28T10:00:00Z", "DE"));
  EXPECT_EQ(reading->valid_from, Utc(2024, 2, 29, 10));
}

TEST_F(ReplayProviderTest, YearsLastHourServesTheTracesLastRow) {
  auto provider = Make({"FR"});
  absl::StatusOr<Reading> reading = provider->Current("FR", Utc(2026, 12, 31, 23, 30));
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->value, csv_->At("2022-12-31T22:00:00Z", "FR"));
  EXPECT_EQ(reading->valid_to, Utc(2027, 1, 1, 0));
}

TEST_F(ReplayProviderTest, ForecastIsTheFollowingHoursAndWrapsAtYearEnd) {
  auto provider = Make({"GB"});
  absl::StatusOr<std::vector<Reading>> forecast =
      provider->Forecast("GB", Utc(2026, 12, 31, 21, 30), absl::Hours(4));
  ASSERT_THAT(forecast, IsOk());
  // Covers [21:00, 01:30+): 21, 22, 23 (= last row), 00 (Jan 1), 01.
  ASSERT_EQ(forecast->size(), 5u);
  EXPECT_EQ((*forecast)[0].value, csv_->At("2022-12-31T21:00:00Z", "GB"));
  EXPECT_EQ((*forecast)[1].value, csv_->At("2022-12-31T22:00:00Z", "GB"));
  EXPECT_EQ((*forecast)[2].value, csv_->At("2022-12-31T22:00:00Z", "GB"));
  EXPECT_EQ((*forecast)[3].value, csv_->At("2022-01-01T00:00:00Z", "GB"));
  EXPECT_EQ((*forecast)[4].value, csv_->At("2022-01-01T01:00:00Z", "GB"));
  for (std::size_t i = 1; i < forecast->size(); ++i) {
    EXPECT_EQ((*forecast)[i].valid_from, (*forecast)[i - 1].valid_to);
  }
}

TEST_F(ReplayProviderTest, AllZonesWork) {
  auto provider = Make({"*"});
  ASSERT_EQ(provider->locations().size(), 123u);
  EXPECT_EQ(provider->locations(), csv_->zones());
  for (const std::string& zone : provider->locations()) {
    absl::StatusOr<Reading> reading = provider->Current(zone, Utc(2026, 6, 15, 12));
    ASSERT_THAT(reading, IsOk()) << zone;
    EXPECT_EQ(reading->value, csv_->At("2022-06-15T12:00:00Z", zone)) << zone;
  }
}

TEST_F(ReplayProviderTest, UnknownZoneIsRejected) {
  EXPECT_THAT(ReplayProvider::Create("replay", *trace_, {"DE", "XYZW"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "provider \"replay\": location \"XYZW\" is not a zone of the replay trace"));
  // Every one the trace lacks, not the first alone, each with its nearest zone.
  EXPECT_THAT(ReplayProvider::Create("replay", *trace_, {"DEU", "FR", "SE-SE9", "XYZW"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "provider \"replay\": locations \"DEU\" (did you mean DE?), \"SE-SE9\" "
                       "(did you mean SE-SE1?), \"XYZW\" are not zones of the replay trace"));
  auto provider = Make({"DE"});
  EXPECT_THAT(
      provider->Current("XX", Utc(2026, 1, 1, 0)),
      StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("unknown location \"XX\"")));
}

TEST(IntensityTrace, EmptyCellIsNoData) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Parse(
      "datetime,A,B\n2022-01-01T00:00:00Z,1.5,\n2022-01-01T01:00:00Z,2,3\n", "t.csv");
  ASSERT_THAT(trace, IsOk());
  EXPECT_EQ(trace->Value(0, 0), 1.5);
  EXPECT_EQ(trace->Value(1, 0), std::nullopt);
  EXPECT_EQ(trace->Value(1, 1), 3);
  auto provider =
      ReplayProvider::Create("r", std::make_shared<const IntensityTrace>(*trace), {"B"});
  ASSERT_THAT(provider, IsOk());
  EXPECT_THAT((*provider)->Current("B", Utc(2030, 1, 1, 0, 10)),
              StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("no value for \"B\"")));
}

}  // namespace
}  // namespace carbonroute::providers
