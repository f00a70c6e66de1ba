// `scheduler-lite window` against a fake collector's forecast API.
#include "scheduler-lite/window_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "contract/forecast_api.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_clock.h"
#include "test/testing/fake_provider_server.h"

namespace carbonroute::scheduler_lite {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000) + absl::Minutes(20);

class WindowCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_ = *net::CurlHttpClient::Create("test");
    request_.collector = collector_.base_url();
    request_.location = "DE";
    request_.duration = absl::Hours(2);
    request_.deadline = "+12h";
  }
  // A forecast of `values`, hourly from the top of the hour before kNow.
  void Serve(const std::string& location, const std::vector<double>& values) {
    ForecastAnswer answer{location, {{"replay", EmissionsType::kAverage, {}}}};
    absl::Time from = absl::FromUnixSeconds(1'800'000'000);
    for (double value : values) {
      answer.series[0].points.push_back({from, from + absl::Hours(1), value});
      from += absl::Hours(1);
    }
    collector_.Script("/api/v1/forecast", {{200, forecast_api::EncodeAnswer(answer), {}}});
  }
  int Run() {
    out_.str("");
    err_.str("");
    return WindowCommand(request_, *http_, clock_, out_, err_);
  }

  testing::FakeProviderServer collector_;
  std::unique_ptr<net::CurlHttpClient> http_;
  testing::FakeClock clock_{kNow};
  WindowRequest request_;
  std::ostringstream out_, err_;
};

TEST_F(WindowCommandTest, FindsTheCleanestStartAndSaysWhen) {
  std::vector<double> values(14, 300);
  values[5] = values[6] = 100;  // 05:00-07:00 after the hour
  Serve("DE", values);
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("2027-01-15T13:00:00Z (in 4h40m)"));
}

TEST_F(WindowCommandTest, TheCollectorsMetricsUrlNamesTheCollectorToo) {
  std::vector<double> values(14, 300);
  values[5] = values[6] = 100;
  Serve("DE", values);
  request_.collector = collector_.base_url() + "/metrics";  // as rank --metrics takes it
  EXPECT_EQ(Run(), 0) << err_.str();                        // was a bare 404
  EXPECT_THAT(err_.str(), HasSubstr("note: --collector takes the collector's base URL; asking " +
                                    collector_.base_url()));
  EXPECT_THAT(out_.str(), HasSubstr("(in 4h40m)"));
}

TEST_F(WindowCommandTest, AConstantForecastStartsNow) {
  Serve("DE", std::vector<double>(14, 300));
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("(now)"));
  EXPECT_THAT(out_.str(), Not(HasSubstr("(in 0)")));
}

TEST_F(WindowCommandTest, ALocationTheCollectorDoesNotPollIsAUsageError) {
  collector_.Script("/api/v1/forecast",
                    {{404, R"({"error":"no provider polls location XX"})", {}}});
  request_.location = "XX";
  EXPECT_EQ(Run(), 2);
  EXPECT_THAT(err_.str(), HasSubstr("no provider polls location XX"));
}

TEST_F(WindowCommandTest, BadDeadlinesAreRefusedBeforeAskingTheCollector) {
  for (const char* deadline : {"+-5h", "+0s", "tomorrow", "+1h"}) {
    request_.deadline = deadline;
    EXPECT_EQ(Run(), 2) << deadline;
    EXPECT_THAT(err_.str(), Not(HasSubstr("ns"))) << err_.str();  // no nanoseconds
  }
  EXPECT_EQ(collector_.Count("/api/v1/forecast"), 0);
}

TEST_F(WindowCommandTest, JsonOutputEscapesTheLocation) {
  request_.location = "DE \"north\"";
  request_.format = "json";
  Serve(request_.location, std::vector<double>(14, 300));
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr(R"("location":"DE \"north\"")"));
}

// A deadline past the forecast's end: the answer says where the forecast ends.
TEST_F(WindowCommandTest, ADeadlinePastTheForecastSaysWhereTheForecastEnds) {
  Serve("DE", std::vector<double>(14, 300));  // to 14:00 after the hour before kNow
  request_.deadline = "+200h";
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("the forecast ends 2027-01-15T22:00:00Z (in 13h40m), before "
                                    "the deadline"));
  request_.format = "json";
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr(R"("forecast_end":"2027-01-15T22:00:00Z")"));
  request_.deadline = "+12h";  // within the forecast: nothing said
  request_.format = "table";
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), Not(HasSubstr("forecast ends")));
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
