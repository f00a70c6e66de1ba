// File: cache/reading_store.h
//
// The SQLite system of record for carbon-intensity readings and forecasts.
// The collector asks it before calling any provider: while a stored reading
// covers "now", no upstream call is made, across restarts too (the file is
// reused).
//
// Tables (PRAGMA user_version; version 1 files are upgraded in place), both keyed by
// (provider, location, emissions_type, valid_from), times in Unix seconds:
//   readings   current readings as reported, with valid_to, value, unit,
//              estimated, fetched_at
//   forecasts  forecast points; a newer forecast replaces the points of the
//              older one from its first valid_from on
// and (schema version 2) `fetches`, keyed by (provider, location,
// emissions_type, kind): when a call that must not be repeated after a restart
// (e.g. kind "history", at most hourly) was last made; (schema version 3)
// `provider_calls`, keyed by (provider, month): the calls sent in a calendar
// month, so that a monthly budget (providers/call_limiter.h) survives restarts.
//
// Replacement rule for `readings` (Put): a reading for an existing key
// replaces the stored one unless the stored one is measured
// (estimated=false) and the new one is an estimate. So a measured value
// replaces an earlier estimate, and an estimate never overwrites a
// measurement.
//
// The database runs in WAL mode (":memory:" excepted), synchronous=NORMAL.
// On a full disk (kResourceExhausted) nothing of the failed write is kept,
// no transaction is left open, and the WAL is checkpointed, so that later
// writes reuse its space. A volume that cannot hold the database plus a
// 4 MB WAL (SQLite checkpoints at 1000 pages) can be filled by the WAL
// itself; give the cache more than that.
//
// Errors: kInvalidArgument for a record with valid_to <= valid_from or a
// non-finite value (nothing is written); kUnavailable when the database is
// locked by another process; kResourceExhausted when the disk is full;
// kDataLoss for a database found corrupt; kInternal for other SQLite
// failures (with SQLite's message).
//
// Thread safety: all methods are safe to call concurrently (one connection,
// serialised by a mutex).
#ifndef CARBONROUTE_CACHE_READING_STORE_H_
#define CARBONROUTE_CACHE_READING_STORE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cache/intensity_record.h"

struct sqlite3;

namespace carbonroute::cache {

class Statement;

class ReadingStore {
 public:
  // Opens or creates the database at `path` (":memory:" for a private
  // in-memory database), creates the schema and runs PRAGMA quick_check.
  //
  // A file that is not an SQLite database, or one that fails the check, is
  // not used and not deleted: it is renamed to PATH.corrupt-<UTC time> (its
  // -wal with it) and a new, empty cache is created in its place; moved_aside()
  // then says where it went and why. The cache only holds what providers
  // can be asked again, so starting empty loses no data a user entered.
  //
  // kPermissionDenied or kNotFound, with the system's reason and the
  // directory, when the file cannot be opened or created; kInternal for a
  // database this program must not touch (a newer schema version) or a
  // corrupt one that cannot be renamed.
  static absl::StatusOr<std::unique_ptr<ReadingStore>> Open(const std::string& path);
  ~ReadingStore();

  // Where Open() moved an unusable file (empty if it did not), and SQLite's
  // reason.
  const std::string& moved_aside() const { return moved_aside_; }
  const std::string& moved_aside_reason() const { return moved_aside_reason_; }

  ReadingStore(const ReadingStore&) = delete;
  ReadingStore& operator=(const ReadingStore&) = delete;

  // Stores a current reading under the replacement rule above. Returns true
  // if it was written, false if a measured reading was kept instead.
  absl::StatusOr<bool> Put(const IntensityRecord& record);

  // Put() for many records in one transaction (all or nothing). Returns how
  // many were written. kInvalidArgument (nothing written) if any is invalid.
  absl::StatusOr<int64_t> PutMany(const std::vector<IntensityRecord>& records);

  // The reading of `series` whose [valid_from, valid_to) contains `t`, the
  // latest-starting one if several do; nullopt if none.
  absl::StatusOr<std::optional<IntensityRecord>> ValidAt(const IntensitySeries& series,
                                                         absl::Time t);

  // The latest-starting reading of `series` whose valid_to is after `t`
  // (what may still be exported during the grace period); nullopt if none.
  absl::StatusOr<std::optional<IntensityRecord>> LatestEndingAfter(const IntensitySeries& series,
                                                                   absl::Time t);

  // Whether `series` has an estimated reading whose valid_to is after `t`
  // (what a provider's history may still replace with a measured value).
  absl::StatusOr<bool> HasEstimateEndingAfter(const IntensitySeries& series, absl::Time t);

  // Stores a forecast: deletes the series' forecast points from
  // points.front().valid_from on, then inserts `points`, in one transaction.
  // An empty `points` is a no-op.
  absl::Status PutForecast(const IntensitySeries& series,
                           const std::vector<IntensityRecord>& points);

  // The latest valid_to among the series' forecast points; nullopt if none.
  absl::StatusOr<std::optional<absl::Time>> ForecastEnd(const IntensitySeries& series);

  // The series' forecast points that overlap [from, to), by valid_from.
  absl::StatusOr<std::vector<IntensityRecord>> ForecastBetween(const IntensitySeries& series,
                                                               absl::Time from, absl::Time to);

  // The stored readings (not forecasts) of `series` that overlap [from, to),
  // sorted by valid_from: the observed history (the Carbon Aware SDK API's
  // /emissions/bylocations, carbon_aware/).
  absl::StatusOr<std::vector<IntensityRecord>> ReadingsBetween(const IntensitySeries& series,
                                                               absl::Time from, absl::Time to);

  // Records that a `kind` call for `series` was made at `t` (replacing the last).
  absl::Status RecordFetch(const IntensitySeries& series, absl::string_view kind, absl::Time t);
  // When the last `kind` call for `series` was made; nullopt if never.
  absl::StatusOr<std::optional<absl::Time>> LastFetch(const IntensitySeries& series,
                                                      absl::string_view kind);

  // Adds `calls` to the calls `provider` sent in the month starting at `month`.
  absl::Status CountProviderCalls(absl::string_view provider, absl::Time month, int64_t calls);
  // The calls `provider` sent in the month starting at `month` (0 if none were counted).
  absl::StatusOr<int64_t> ProviderCalls(absl::string_view provider, absl::Time month);

  // Deletes readings and forecast points whose valid_to is before `cutoff`.
  // Returns how many rows were deleted.
  absl::StatusOr<int64_t> Prune(absl::Time cutoff);

  // Number of rows in `readings` (the collector logs it at start).
  absl::StatusOr<int64_t> CountReadings();

 private:
  explicit ReadingStore(sqlite3* db);
  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // COMMIT if `status` is OK; ROLLBACK whenever a transaction is still open.
  absl::Status EndTransaction(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Returns `status`; on a full disk first checkpoints the WAL.
  absl::Status AfterWrite(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Binds (series, from, to) to `query` (forecast_between or
  // readings_between), collects every row, resets.
  absl::StatusOr<std::vector<IntensityRecord>> RecordsBetween(Statement& query,
                                                              const IntensitySeries& series,
                                                              absl::Time from, absl::Time to)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Binds (series, t) to a one-row query of `readings`, steps once, resets.
  absl::StatusOr<std::optional<IntensityRecord>> QueryRecord(Statement& query,
                                                             const IntensitySeries& series,
                                                             absl::Time t)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  sqlite3* const db_;
  std::string moved_aside_;
  std::string moved_aside_reason_;
  struct Statements;
  std::unique_ptr<Statements> statements_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::cache

#endif  // CARBONROUTE_CACHE_READING_STORE_H_
