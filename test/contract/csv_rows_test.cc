#include "contract/csv_rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

// RFC 4180: a quoted field holds commas, doubled quotes and line breaks.
TEST(ReadCsvRecords, QuotedFieldsAsRfc4180SaysWithTheLineEachRecordStartsOn) {
  absl::StatusOr<std::vector<CsvRecord>> records = ReadCsvRecords(
      "zone_code,zone_name,Americas\r\n"
      "US-CAR-DUK,\"Duke, South Carolina\",1\n"
      "\n"
      "XX,\"say \"\"hi\"\"\",0\n"
      "YY,\"two\nlines\",1\n"
      "ZZ,, 1 \n",
      "zones.csv");
  ASSERT_THAT(records, IsOk());
  ASSERT_EQ(records->size(), 5u);
  EXPECT_THAT((*records)[1].cells, ElementsAre("US-CAR-DUK", "Duke, South Carolina", "1"));
  EXPECT_EQ((*records)[1].line, 2u);
  EXPECT_THAT((*records)[2].cells, ElementsAre("XX", "say \"hi\"", "0"));
  EXPECT_EQ((*records)[2].line, 4u);  // the blank line 3 skipped, counted
  EXPECT_THAT((*records)[3].cells, ElementsAre("YY", "two\nlines", "1"));
  EXPECT_EQ((*records)[4].line, 7u);
  EXPECT_THAT((*records)[4].cells, ElementsAre("ZZ", "", "1"));  // spaces around dropped
}

TEST(ReadCsvRecords, MalformedQuotingNamesTheLine) {
  EXPECT_THAT(ReadCsvRecords("a,b\nx,\"open\n", "f.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("f.csv:2: malformed CSV")));
  EXPECT_THAT(ReadCsvRecords("a,b\nx,y\"z\"\n", "f.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("f.csv:2: malformed CSV")));
}

TEST(ForEachCsvRow, CountsCellsAfterUnquoting) {
  std::vector<std::string> seen;
  ASSERT_THAT(ForEachCsvRow("region,zone\n\"europe-west1\",\"BE\"\n", "z.csv", 2,
                            [&](std::size_t, const std::vector<absl::string_view>& cells) {
                              seen.emplace_back(cells[1]);
                              return absl::OkStatus();
                            }),
              IsOk());
  EXPECT_THAT(seen, ElementsAre("BE"));
  EXPECT_THAT(ForEachCsvRow("a,b\n\"x, y\",z,w\n", "z.csv", 2,
                            [](std::size_t, const auto&) { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kInvalidArgument, "z.csv:2: expected 2 cells, got 3"));
}

// Each record as it ends, cells reused; the first error stops the reading,
// before a malformed line further on is reached.
TEST(ForEachCsvRecord, StopsAtTheFirstErrorTheCallbackReturns) {
  std::vector<std::size_t> lines;
  const absl::Status status =
      ForEachCsvRecord("a,b\n1,2\n\n3,\"x\"\n4,\"open\n", "f.csv", [&](const CsvRecord& record) {
        lines.push_back(record.line);
        if (record.cells[0] == "3") {
          EXPECT_THAT(record.cells, ElementsAre("3", "x"));
          return absl::InvalidArgumentError("f.csv:4: three");
        }
        return absl::OkStatus();
      });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, "f.csv:4: three"));
  EXPECT_THAT(lines, ElementsAre(1u, 2u, 4u));
}

}  // namespace
}  // namespace carbonroute
