#include "cache/reading_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::cache {
namespace {

using testing::IsOk;
using testing::StatusIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);  // on the hour
const IntensitySeries kSeries{"replay", "DE", EmissionsType::kAverage};

IntensityRecord Record(absl::Time from, double value, bool estimated = false,
                       absl::Duration validity = absl::Hours(1)) {
  IntensityRecord record;
  record.series = kSeries;
  record.valid_from = from;
  record.valid_to = from + validity;
  record.value = value;
  record.estimated = estimated;
  record.fetched_at = from;
  return record;
}

std::unique_ptr<ReadingStore> OpenMemory() {
  absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(":memory:");
  EXPECT_THAT(store, IsOk());
  return store.ok() ? *std::move(store) : nullptr;
}

std::optional<IntensityRecord> ValidAt(ReadingStore& store, const IntensitySeries& series,
                                       absl::Time t) {
  absl::StatusOr<std::optional<IntensityRecord>> found = store.ValidAt(series, t);
  EXPECT_THAT(found, IsOk());
  return found.ok() ? *found : std::nullopt;
}

TEST(ReadingStore, ValidAtHonoursTheHalfOpenValidityWindow) {
  auto store = OpenMemory();
  ASSERT_THAT(store->Put(Record(kT0, 300)), IsOk());
  EXPECT_EQ(ValidAt(*store, kSeries, kT0 - absl::Seconds(1)), std::nullopt);
  ASSERT_TRUE(ValidAt(*store, kSeries, kT0).has_value());
  EXPECT_EQ(ValidAt(*store, kSeries, kT0 + absl::Minutes(59))->value, 300);
  EXPECT_EQ(ValidAt(*store, kSeries, kT0 + absl::Hours(1)), std::nullopt);  // valid_to is exclusive
  // Another series is not confused with this one.
  EXPECT_EQ(ValidAt(*store, {"replay", "FR", EmissionsType::kAverage}, kT0), std::nullopt);
  EXPECT_EQ(ValidAt(*store, {"replay", "DE", EmissionsType::kMarginal}, kT0), std::nullopt);
}

TEST(ReadingStore, RoundTripsEveryField) {
  auto store = OpenMemory();
  IntensityRecord record = Record(kT0, 123.25, /*estimated=*/true);
  record.kind = ValueKind::kPercentile;
  record.fetched_at = kT0 + absl::Seconds(7);
  ASSERT_THAT(store->Put(record), IsOk());
  std::optional<IntensityRecord> found = ValidAt(*store, kSeries, kT0);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->series.provider, "replay");
  EXPECT_EQ(found->series.location, "DE");
  EXPECT_EQ(found->series.emissions_type, EmissionsType::kAverage);
  EXPECT_EQ(found->valid_from, kT0);
  EXPECT_EQ(found->valid_to, kT0 + absl::Hours(1));
  EXPECT_EQ(found->value, 123.25);
  EXPECT_EQ(found->kind, ValueKind::kPercentile);
  EXPECT_TRUE(found->estimated);
  EXPECT_EQ(found->fetched_at, kT0 + absl::Seconds(7));
}

TEST(ReadingStore, MeasuredReadingReplacesAnEarlierEstimate) {
  auto store = OpenMemory();
  ASSERT_THAT(store->Put(Record(kT0, 310, /*estimated=*/true)), IsOk());
  absl::StatusOr<bool> replaced = store->Put(Record(kT0, 295, /*estimated=*/false));
  ASSERT_THAT(replaced, IsOk());
  EXPECT_TRUE(*replaced);
  EXPECT_EQ(ValidAt(*store, kSeries, kT0)->value, 295);
  EXPECT_FALSE(ValidAt(*store, kSeries, kT0)->estimated);
  EXPECT_EQ(*store->CountReadings(), 1);
}

TEST(ReadingStore, EstimateNeverOverwritesAMeasurement) {
  auto store = OpenMemory();
  ASSERT_THAT(store->Put(Record(kT0, 295, /*estimated=*/false)), IsOk());
  absl::StatusOr<bool> replaced = store->Put(Record(kT0, 310, /*estimated=*/true));
  ASSERT_THAT(replaced, IsOk());
  EXPECT_FALSE(*replaced);
  EXPECT_EQ(ValidAt(*store, kSeries, kT0)->value, 295);
}

TEST(ReadingStore, LaterEstimateReplacesEarlierEstimate) {
  auto store = OpenMemory();
  ASSERT_THAT(store->Put(Record(kT0, 310, true)), IsOk());
  ASSERT_THAT(store->Put(Record(kT0, 305, true)), IsOk());
  EXPECT_EQ(ValidAt(*store, kSeries, kT0)->value, 305);
}

TEST(ReadingStore, PutManyIsAllOrNothing) {
  auto store = OpenMemory();
  ASSERT_THAT(store->Put(Record(kT0, 300, /*estimated=*/true)), IsOk());
  absl::StatusOr<int64_t> written =
      store->PutMany({Record(kT0, 290, false), Record(kT0 + absl::Hours(1), 280, true)});
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(*written, 2);
  EXPECT_EQ(ValidAt(*store, kSeries, kT0)->value, 290);  // the measurement replaced the estimate
  IntensityRecord bad = Record(kT0 + absl::Hours(2), 1);
  bad.valid_to = bad.valid_from;
  EXPECT_THAT(store->PutMany({Record(kT0 + absl::Hours(3), 5), bad}),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_EQ(ValidAt(*store, kSeries, kT0 + absl::Hours(3)), std::nullopt);  // nothing written
}

TEST(ReadingStore, InvalidRecordIsRejectedAndNothingStoredIsLost) {
  auto store = OpenMemory();
  ASSERT_THAT(store->Put(Record(kT0, 300)), IsOk());
  IntensityRecord bad = Record(kT0, 1);
  bad.valid_to = kT0;  // empty interval
  EXPECT_THAT(store->Put(bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                        ::testing::HasSubstr("invalid record for replay/DE")));
  IntensityRecord nan = Record(kT0, std::nan(""));
  EXPECT_THAT(store->Put(nan), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_EQ(ValidAt(*store, kSeries, kT0)->value, 300);
}

TEST(ReadingStore, ReopeningTheFileKeepsReadings) {
  testing::ScopedTempDir temp_dir;
  const std::string path = temp_dir.File("reopen.sqlite");
  {
    absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(path);
    ASSERT_THAT(store, IsOk());
    ASSERT_THAT((*store)->Put(Record(kT0, 300)), IsOk());
  }
  absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(path);
  ASSERT_THAT(store, IsOk());
  EXPECT_EQ(ValidAt(**store, kSeries, kT0 + absl::Minutes(30))->value, 300);
  EXPECT_TRUE(std::filesystem::exists(path + "-wal"));  // WAL mode
}

TEST(ReadingStore, PruneDeletesRowsPastRetentionOnly) {
  auto store = OpenMemory();
  for (int h = 0; h < 10; ++h) ASSERT_THAT(store->Put(Record(kT0 + absl::Hours(h), h)), IsOk());
  ASSERT_THAT(store->PutForecast(kSeries, {Record(kT0, 1), Record(kT0 + absl::Hours(1), 2)}),
              IsOk());
  // Rows whose validity ended before kT0 + 5h: hours 0..3 (hour 4 ends exactly at the cutoff).
  absl::StatusOr<int64_t> pruned = store->Prune(kT0 + absl::Hours(5));
  ASSERT_THAT(pruned, IsOk());
  EXPECT_EQ(*pruned, 4 + 2);
  EXPECT_EQ(*store->CountReadings(), 6);
  EXPECT_EQ(ValidAt(*store, kSeries, kT0 + absl::Hours(3)), std::nullopt);
  EXPECT_EQ(ValidAt(*store, kSeries, kT0 + absl::Hours(4))->value, 4);
}

TEST(ReadingStore, NewerForecastReplacesTheOverlappingPart) {
  auto store = OpenMemory();
  std::vector<IntensityRecord> first;
  for (int h = 0; h < 4; ++h) first.push_back(Record(kT0 + absl::Hours(h), 100 + h, true));
  ASSERT_THAT(store->PutForecast(kSeries, first), IsOk());
  EXPECT_EQ(**store->ForecastEnd(kSeries), kT0 + absl::Hours(4));

  std::vector<IntensityRecord> second;
  for (int h = 2; h < 5; ++h) second.push_back(Record(kT0 + absl::Hours(h), 200 + h, true));
  ASSERT_THAT(store->PutForecast(kSeries, second), IsOk());
  absl::StatusOr<std::vector<IntensityRecord>> points =
      store->ForecastBetween(kSeries, kT0, kT0 + absl::Hours(10));
  ASSERT_THAT(points, IsOk());
  std::vector<double> values;
  for (const IntensityRecord& p : *points) values.push_back(p.value);
  EXPECT_THAT(values, ::testing::ElementsAre(100, 101, 202, 203, 204));
  EXPECT_EQ(**store->ForecastEnd(kSeries), kT0 + absl::Hours(5));
  // Overlap semantics: a window starting mid-point includes that point.
  EXPECT_EQ(store->ForecastBetween(kSeries, kT0 + absl::Minutes(90), kT0 + absl::Hours(2))->size(),
            1u);
}

TEST(ReadingStore, ForecastBetweenKeepsAPointStartingInTheWindowsLastFraction) {
  // At 0.3 s past the hour (when a collector wakes for an expiry) the 24 h
  // window ends 0.3 s after the point starting at +24 h: that point is in it.
  auto store = OpenMemory();
  std::vector<IntensityRecord> points;
  for (int h = 0; h <= 24; ++h) points.push_back(Record(kT0 + absl::Hours(h), 100 + h, true));
  ASSERT_THAT(store->PutForecast(kSeries, points), IsOk());
  const absl::Time now = kT0 + absl::Milliseconds(300);
  absl::StatusOr<std::vector<IntensityRecord>> window =
      store->ForecastBetween(kSeries, now, now + absl::Hours(24));
  ASSERT_THAT(window, IsOk());
  ASSERT_EQ(window->size(), 25u);
  EXPECT_EQ(window->back().valid_from, kT0 + absl::Hours(24));
  // A bound on a whole second stays exclusive.
  EXPECT_EQ(store->ForecastBetween(kSeries, kT0, kT0 + absl::Hours(24))->size(), 24u);
}

TEST(ReadingStore, ReadingsBetweenReturnsTheStoredReadingsNotTheForecast) {
  auto store = OpenMemory();
  for (int h = 0; h < 4; ++h)
    ASSERT_THAT(store->Put(Record(kT0 + absl::Hours(h), 300 + h)), IsOk());
  ASSERT_THAT(store->PutForecast(kSeries, {Record(kT0 + absl::Hours(1), 999, true)}), IsOk());
  absl::StatusOr<std::vector<IntensityRecord>> readings =
      store->ReadingsBetween(kSeries, kT0 + absl::Minutes(90), kT0 + absl::Hours(3));
  ASSERT_THAT(readings, IsOk());
  std::vector<double> values;
  for (const IntensityRecord& r : *readings) values.push_back(r.value);
  EXPECT_THAT(values, ::testing::ElementsAre(301, 302));  // overlapping [1:30, 3:00), by start
  EXPECT_TRUE(
      store->ReadingsBetween({"replay", "FR", EmissionsType::kAverage}, kT0, kT0 + absl::Hours(4))
          ->empty());
}

TEST(ReadingStore, RemembersTheLastFetchOfEachKindPerSeries) {
  auto store = OpenMemory();
  const IntensitySeries other{"replay", "FR", EmissionsType::kAverage};
  EXPECT_EQ(*store->LastFetch(kSeries, "history"), std::nullopt);
  ASSERT_THAT(store->RecordFetch(kSeries, "history", kT0), IsOk());
  ASSERT_THAT(store->RecordFetch(kSeries, "history", kT0 + absl::Hours(1)), IsOk());
  EXPECT_EQ(*store->LastFetch(kSeries, "history"), kT0 + absl::Hours(1));
  EXPECT_EQ(*store->LastFetch(kSeries, "forecast"), std::nullopt);
  EXPECT_EQ(*store->LastFetch(other, "history"), std::nullopt);
}

TEST(ReadingStore, ProviderCallsAddUpPerProviderAndMonthAcrossReopening) {
  testing::ScopedTempDir dir;
  const std::string path = dir.File("calls.sqlite");
  const absl::Time november = absl::FromCivil(absl::CivilMonth(2026, 11), absl::UTCTimeZone());
  const absl::Time december = absl::FromCivil(absl::CivilMonth(2026, 12), absl::UTCTimeZone());
  {
    auto store = *ReadingStore::Open(path);
    EXPECT_EQ(*store->ProviderCalls("em", november), 0);
    ASSERT_THAT(store->CountProviderCalls("em", november, 1), IsOk());
    ASSERT_THAT(store->CountProviderCalls("em", november, 2), IsOk());
    ASSERT_THAT(store->CountProviderCalls("em", december, 5), IsOk());
    ASSERT_THAT(store->CountProviderCalls("wt", november, 7), IsOk());
  }
  auto reopened = *ReadingStore::Open(path);
  EXPECT_EQ(*reopened->ProviderCalls("em", november), 3);
  EXPECT_EQ(*reopened->ProviderCalls("em", december), 5);
  EXPECT_EQ(*reopened->ProviderCalls("wt", november), 7);
}

TEST(ReadingStore, ForecastEndOfAnUnknownSeriesIsEmpty) {
  auto store = OpenMemory();
  absl::StatusOr<std::optional<absl::Time>> end = store->ForecastEnd(kSeries);
  ASSERT_THAT(end, IsOk());
  EXPECT_EQ(*end, std::nullopt);
}

TEST(ReadingStore, AMissingDirectoryIsNamedWithTheReason) {
  testing::ScopedTempDir dir;
  const std::string path = dir.File("missing/x.sqlite");
  EXPECT_THAT(ReadingStore::Open(path),
              StatusIs(absl::StatusCode::kNotFound,
                       ::testing::AllOf(::testing::HasSubstr(path),
                                        ::testing::HasSubstr("No such file or directory"),
                                        ::testing::HasSubstr(dir.File("missing")))));
}

TEST(ReadingStore, AnUnwritableDirectoryIsPermissionDenied) {
  // sysfs refuses to create files even for root, who passes every mode check.
  EXPECT_THAT(ReadingStore::Open("/sys/carbonroute.sqlite"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       ::testing::AllOf(::testing::HasSubstr("Permission denied"),
                                        ::testing::HasSubstr("the directory \"/sys\" must"))));
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ReadingStore, AFileThatIsNotADatabaseIsMovedAsideAndAnEmptyCacheCreated) {
  testing::ScopedTempDir dir;
  const std::string path = dir.File("notes.sqlite");
  const std::string text = "this is not an SQLite database, just text long enough to have a header";
  std::ofstream(path) << text;

  absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(path);
  ASSERT_THAT(store, IsOk());
  EXPECT_THAT((*store)->moved_aside(), ::testing::StartsWith(path + ".corrupt-"));
  EXPECT_THAT((*store)->moved_aside_reason(), ::testing::HasSubstr("not a database"));
  EXPECT_EQ(Contents((*store)->moved_aside()), text);  // kept, not deleted
  ASSERT_THAT((*store)->Put(Record(kT0, 300)), IsOk());
  EXPECT_EQ(ValidAt(**store, kSeries, kT0)->value, 300);
  store->reset();

  absl::StatusOr<std::unique_ptr<ReadingStore>> reopened = ReadingStore::Open(path);
  ASSERT_THAT(reopened, IsOk());
  EXPECT_EQ((*reopened)->moved_aside(), "");  // the new file is a database
  EXPECT_EQ(ValidAt(**reopened, kSeries, kT0)->value, 300);
}

TEST(ReadingStore, ADatabaseThatFailsTheIntegrityCheckIsMovedAside) {
  testing::ScopedTempDir dir;
  const std::string path = dir.File("cache.sqlite");
  {
    absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(path);
    ASSERT_THAT(store, IsOk());
    std::vector<IntensityRecord> records;
    for (int hour = 0; hour < 2000; ++hour)
      records.push_back(Record(kT0 + absl::Hours(hour), hour));
    ASSERT_THAT((*store)->PutMany(records), IsOk());
  }  // closing checkpoints the WAL into the file
  const std::size_t size = std::filesystem::file_size(path);
  ASSERT_GT(size, 4 * 4096u);
  {  // garbage over the second and third pages (the first holds the header and schema)
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4096);
    const std::string garbage(2 * 4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }

  absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(path);
  ASSERT_THAT(store, IsOk());
  EXPECT_THAT((*store)->moved_aside(), ::testing::StartsWith(path + ".corrupt-"));
  EXPECT_EQ(std::filesystem::file_size((*store)->moved_aside()), size);
  absl::StatusOr<int64_t> count = (*store)->CountReadings();
  ASSERT_THAT(count, IsOk());
  EXPECT_EQ(*count, 0);
}

TEST(ReadingStore, ANewerSchemaVersionIsRefusedAndTheFileLeftAlone) {
  testing::ScopedTempDir dir;
  const std::string path = dir.File("cache.sqlite");
  {
    absl::StatusOr<std::unique_ptr<ReadingStore>> store = ReadingStore::Open(path);
    ASSERT_THAT(store, IsOk());
    ASSERT_THAT((*store)->Put(Record(kT0, 300)), IsOk());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  EXPECT_THAT(ReadingStore::Open(path),
              StatusIs(absl::StatusCode::kInternal, ::testing::HasSubstr("schema version 99")));
  EXPECT_FALSE(std::filesystem::exists(path + ".corrupt-"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  EXPECT_LE(entries, 3u);  // the file, perhaps its -wal and -shm; nothing moved aside
}

}  // namespace
}  // namespace carbonroute::cache
