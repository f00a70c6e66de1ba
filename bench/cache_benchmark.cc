// The SQLite cache at the size of a year of hourly readings for 123 zones.
//
//   ./build/bin/cache_benchmark
//
// BM_InsertYear: 8,760 h × 123 locations = 1,077,480 readings into a fresh
//   file (WAL, synchronous=NORMAL), in daily PutMany batches (123 × 24 rows).
// BM_ValidAtOneLocation: "which reading is valid now" for one location in that
//   database (the lookup the collector makes before every provider call).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "cache/reading_store.h"

namespace {

using carbonroute::EmissionsType;
using carbonroute::cache::IntensityRecord;
using carbonroute::cache::ReadingStore;

constexpr int kLocations = 123;
constexpr int kHours = 8760;
const absl::Time kStart = absl::FromUnixSeconds(1640995200);  // 2022-01-01T00:00Z
// A directory of this run's own (mkdtemp), removed at exit with the ~100 MB database.
const std::string& Directory() {
  static const std::string* dir = [] {
    std::string pattern = std::filesystem::temp_directory_path() / "carbonroute-bench-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    auto* made = new std::string(pattern);
    std::atexit([] { std::filesystem::remove_all(Directory()); });
    return made;
  }();
  return *dir;
}
const std::string& DatabasePath() {
  static const std::string path = Directory() + "/cache.sqlite";
  return path;
}

std::string Location(int i) { return "Z" + std::to_string(i); }

void FillYear(ReadingStore& store) {
  std::vector<IntensityRecord> day;
  for (int h = 0; h < kHours; ++h) {
    for (int l = 0; l < kLocations; ++l) {
      IntensityRecord r;
      r.series = {"replay", Location(l), EmissionsType::kAverage};
      r.valid_from = kStart + absl::Hours(h);
      r.valid_to = r.valid_from + absl::Hours(1);
      r.value = 100 + (h * 7 + l) % 500;
      r.fetched_at = r.valid_from;
      day.push_back(std::move(r));
    }
    if (day.size() == 24 * kLocations || h + 1 == kHours) {
      if (!store.PutMany(day).ok()) std::abort();
      day.clear();
    }
  }
}

void BM_InsertYear(benchmark::State& state) {
  for (auto _ : state) {
    std::filesystem::remove(DatabasePath());
    std::filesystem::remove(DatabasePath() + "-wal");
    auto store = *ReadingStore::Open(DatabasePath());
    FillYear(*store);
  }
  state.counters["rows"] = kHours * kLocations;
  state.counters["rows_per_second"] = benchmark::Counter(
      static_cast<double>(kHours) * kLocations * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_InsertYear)->Unit(benchmark::kSecond)->Iterations(1);

void BM_ValidAtOneLocation(benchmark::State& state) {
  if (!std::filesystem::exists(DatabasePath())) {
    auto store = *ReadingStore::Open(DatabasePath());
    FillYear(*store);
  }
  auto store = *ReadingStore::Open(DatabasePath());
  const carbonroute::IntensitySeries series{"replay", Location(61), EmissionsType::kAverage};
  int64_t i = 0;
  for (auto _ : state) {
    const absl::Time now = kStart + absl::Minutes((i++ * 977) % (kHours * 60));
    auto found = store->ValidAt(series, now);
    if (!found.ok() || !found->has_value()) state.SkipWithError("lookup failed");
    benchmark::DoNotOptimize(found);
  }
}
BENCHMARK(BM_ValidAtOneLocation)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
