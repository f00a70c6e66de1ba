#include "contract/forecast_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::forecast_api {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

TEST(ForecastApi, EncodeThenDecodeGivesTheSameAnswer) {
  ForecastAnswer answer;
  answer.location = "DE \"north\"\\x";  // quotes and backslashes must be escaped
  answer.series.push_back(
      {"replay",
       EmissionsType::kAverage,
       {{kT0, kT0 + absl::Hours(1), 412.5}, {kT0 + absl::Hours(1), kT0 + absl::Hours(2), 0.25}}});
  answer.series.push_back({"watttime", EmissionsType::kMarginal, {}});

  absl::StatusOr<ForecastAnswer> decoded = DecodeAnswer(EncodeAnswer(answer));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->location, answer.location);
  ASSERT_EQ(decoded->series.size(), 2u);
  EXPECT_EQ(decoded->series[0].provider, "replay");
  EXPECT_EQ(decoded->series[0].emissions_type, EmissionsType::kAverage);
  ASSERT_EQ(decoded->series[0].points.size(), 2u);
  EXPECT_EQ(decoded->series[0].points[1].valid_from, kT0 + absl::Hours(1));
  EXPECT_EQ(decoded->series[0].points[1].valid_to, kT0 + absl::Hours(2));
  EXPECT_EQ(decoded->series[0].points[0].value, 412.5);
  EXPECT_EQ(decoded->series[1].emissions_type, EmissionsType::kMarginal);
  EXPECT_TRUE(decoded->series[1].points.empty());
}

TEST(ForecastApi, EncodedTimesAreRfc3339InUtc) {
  ForecastAnswer answer{
      "FR", {{"static", EmissionsType::kAverage, {{kT0, kT0 + absl::Minutes(30), 50}}}}};
  EXPECT_THAT(EncodeAnswer(answer), HasSubstr(R"("valid_from":"2027-01-15T08:00:00Z")"));
}

TEST(ForecastApi, DecodeNamesTheFieldThatIsWrong) {
  EXPECT_THAT(DecodeAnswer("<html>").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not JSON")));
  EXPECT_THAT(DecodeAnswer(R"({"series": []})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("location: missing")));
  EXPECT_THAT(DecodeAnswer(R"({"location": "DE", "series": {}})").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("series: not an array")));
  EXPECT_THAT(
      DecodeAnswer(
          R"({"location": "DE", "series": [{"provider": "p", "emissions_type": "mean", "points": []}]})")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(R"(series[0].emissions_type: "mean" is neither average nor marginal)")));
  EXPECT_THAT(
      DecodeAnswer(
          R"({"location": "DE", "series": [{"provider": "p", "emissions_type": "average", "points": [{"valid_from": "yesterday", "valid_to": "2027-01-15T08:00:00Z", "grams_per_kwh": 1}]}]})")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(R"(series[0].points[0].valid_from: "yesterday" is not RFC 3339)")));
  EXPECT_THAT(
      DecodeAnswer(
          R"({"location": "DE", "series": [{"provider": "p", "emissions_type": "average", "points": [{"valid_from": "2027-01-15T08:00:00Z", "valid_to": "2027-01-15T09:00:00Z", "grams_per_kwh": "1"}]}]})")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("series[0].points[0].grams_per_kwh: not a number")));
}

TEST(ForecastApi, ErrorBodiesAreEscapedJson) {
  EXPECT_EQ(EncodeError("no provider polls location \"X\""),
            R"({"error":"no provider polls location \"X\""})");
}

}  // namespace
}  // namespace carbonroute::forecast_api
