#include "cache/reading_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "cache/sqlite_statement.h"

namespace carbonroute::cache {
namespace {

// 2: the fetches table; 3: the provider_calls table (older files gain them).
constexpr int kSchemaVersion = 3;

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS readings (
  provider TEXT NOT NULL, location TEXT NOT NULL, emissions_type TEXT NOT NULL,
  valid_from INTEGER NOT NULL, valid_to INTEGER NOT NULL,
  value REAL NOT NULL, unit TEXT NOT NULL, estimated INTEGER NOT NULL, fetched_at INTEGER NOT NULL,
  PRIMARY KEY (provider, location, emissions_type, valid_from)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS forecasts (
  provider TEXT NOT NULL, location TEXT NOT NULL, emissions_type TEXT NOT NULL,
  valid_from INTEGER NOT NULL, valid_to INTEGER NOT NULL,
  value REAL NOT NULL, unit TEXT NOT NULL, estimated INTEGER NOT NULL, fetched_at INTEGER NOT NULL,
  PRIMARY KEY (provider, location, emissions_type, valid_from)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fetches (
  provider TEXT NOT NULL, location TEXT NOT NULL, emissions_type TEXT NOT NULL,
  kind TEXT NOT NULL, fetched_at INTEGER NOT NULL,
  PRIMARY KEY (provider, location, emissions_type, kind));
CREATE TABLE IF NOT EXISTS provider_calls (
  provider TEXT NOT NULL, month INTEGER NOT NULL, calls INTEGER NOT NULL,
  PRIMARY KEY (provider, month));
CREATE INDEX IF NOT EXISTS readings_valid_to ON readings (valid_to);
CREATE INDEX IF NOT EXISTS forecasts_valid_to ON forecasts (valid_to);
)sql";

constexpr char kColumns[] =
    "provider, location, emissions_type, valid_from, valid_to, value, unit, estimated, fetched_at";
constexpr char kSeriesMatch[] = "provider = ?1 AND location = ?2 AND emissions_type = ?3";

int64_t Seconds(absl::Time t) { return absl::ToUnixSeconds(t); }  // rounds down

// For an exclusive upper bound: rounding down would drop a point that starts
// within the last fraction of a second.
int64_t SecondsRoundedUp(absl::Time t) {
  const int64_t down = absl::ToUnixSeconds(t);
  return absl::FromUnixSeconds(down) < t ? down + 1 : down;
}

absl::Status Validate(const IntensityRecord& record) {
  if (record.valid_to <= record.valid_from || !std::isfinite(record.value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache: invalid record for ", record.series.provider, "/",
                     record.series.location, ": valid_from=", absl::FormatTime(record.valid_from),
                     " valid_to=", absl::FormatTime(record.valid_to), " value=", record.value));
  }
  return absl::OkStatus();
}

void BindSeries(Statement& stmt, const IntensitySeries& series) {
  stmt.Bind(1, series.provider)
      .Bind(2, series.location)
      .Bind(3, EmissionsTypeName(series.emissions_type));
}

void BindRecord(Statement& stmt, const IntensityRecord& record) {
  BindSeries(stmt, record.series);
  stmt.Bind(4, Seconds(record.valid_from))
      .Bind(5, Seconds(record.valid_to))
      .Bind(6, record.value)
      .Bind(7, ValueKindUnit(record.kind))
      .Bind(8, int64_t{record.estimated})
      .Bind(9, Seconds(record.fetched_at));
}

IntensityRecord RecordAt(const Statement& stmt) {
  IntensityRecord record;
  record.series.provider = stmt.Text(0);
  record.series.location = stmt.Text(1);
  record.series.emissions_type = ParseEmissionsType(stmt.Text(2)).value_or(EmissionsType::kAverage);
  record.valid_from = absl::FromUnixSeconds(stmt.Int(3));
  record.valid_to = absl::FromUnixSeconds(stmt.Int(4));
  record.value = stmt.Double(5);
  record.kind = ParseValueKindUnit(stmt.Text(6)).value_or(ValueKind::kGramsPerKwh);
  record.estimated = stmt.Int(7) != 0;
  record.fetched_at = absl::FromUnixSeconds(stmt.Int(8));
  return record;
}

absl::StatusOr<sqlite3*> OpenConnection(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status error = SqliteError(db, rc, absl::StrCat("open \"", path, "\""));
    sqlite3_close(db);
    return error;
  }
  sqlite3_busy_timeout(db, 2000);
  return db;
}

// WAL mode, the schema version check and upgrade, then PRAGMA quick_check
// (https://www.sqlite.org/pragma.html#pragma_quick_check). kDataLoss for a
// file that is not a database or fails the check.
absl::Status Initialize(sqlite3* db, const std::string& path) {
  CARBONROUTE_RETURN_IF_ERROR(Exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  CARBONROUTE_ASSIGN_OR_RETURN(Statement version, Statement::Prepare(db, "PRAGMA user_version"));
  CARBONROUTE_ASSIGN_OR_RETURN(bool has_row, version.Step());
  const int64_t found = has_row ? version.Int(0) : 0;
  if (found > kSchemaVersion) {
    return absl::InternalError(absl::StrCat("cache \"", path, "\" has schema version ", found,
                                            "; this carbonroute knows up to ", kSchemaVersion));
  }
  CARBONROUTE_ASSIGN_OR_RETURN(Statement check, Statement::Prepare(db, "PRAGMA quick_check"));
  CARBONROUTE_ASSIGN_OR_RETURN(bool checked, check.Step());
  if (checked && check.Text(0) != "ok") {
    return absl::DataLossError(
        absl::StrCat("cache \"", path, "\" fails PRAGMA quick_check: ", check.Text(0)));
  }
  CARBONROUTE_RETURN_IF_ERROR(Exec(db, kSchema));        // writes nothing when the tables exist
  if (found == kSchemaVersion) return absl::OkStatus();  // so a full disk does not stop a start
  return Exec(db, absl::StrCat("PRAGMA user_version = ", kSchemaVersion).c_str());
}

// Renames `path` (and its write-ahead log) to PATH.corrupt-<UTC time>, and
// removes its shared-memory index. Returns the new name.
absl::StatusOr<std::string> MoveAside(const std::string& path) {
  const std::string aside = absl::StrCat(
      path, ".corrupt-", absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone()));
  if (std::rename(path.c_str(), aside.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cache \"", path,
                                            "\" is not a usable database and cannot be moved "
                                            "aside to \"",
                                            aside, "\": ", std::strerror(errno)));
  }
  std::rename((path + "-wal").c_str(), (aside + "-wal").c_str());  // absent without a WAL
  std::remove((path + "-shm").c_str());
  return aside;
}
}  // namespace

struct ReadingStore::Statements {
  Statement put;
  Statement valid_at;
  Statement latest_ending_after;
  Statement has_estimate;
  Statement delete_forecast_from;
  Statement insert_forecast;
  Statement forecast_end;
  Statement forecast_between;
  Statement readings_between;
};

absl::StatusOr<std::unique_ptr<ReadingStore>> ReadingStore::Open(const std::string& path) {
  // SQLite says only "unable to open database file"; opening the file first
  // says why (a directory the user cannot write, one that does not exist).
  if (path != ":memory:" && !path.empty()) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
      const int error = errno;
      const std::string directory = std::filesystem::path(path).parent_path().string();
      const std::string message = absl::StrCat(
          "cannot open the cache \"", path, "\": ", std::strerror(error), " (the directory \"",
          directory.empty() ? "." : directory, "\" must exist and be writable by this user)");
      if (error == EACCES || error == EPERM || error == EROFS) {
        return absl::PermissionDeniedError(message);
      }
      if (error == ENOENT) return absl::NotFoundError(message);
      return absl::InternalError(message);
    }
    close(fd);
  }
  CARBONROUTE_ASSIGN_OR_RETURN(sqlite3 * db, OpenConnection(path));
  absl::Status initialized = Initialize(db, path);
  std::string moved_aside;
  std::string moved_aside_reason;
  if (absl::IsDataLoss(initialized) && path != ":memory:" && !path.empty()) {
    moved_aside_reason = std::string(initialized.message());
    sqlite3_close(db);
    CARBONROUTE_ASSIGN_OR_RETURN(moved_aside, MoveAside(path));
    CARBONROUTE_ASSIGN_OR_RETURN(db, OpenConnection(path));
    initialized = Initialize(db, path);
  }
  if (!initialized.ok()) {
    sqlite3_close(db);
    return initialized;
  }
  std::unique_ptr<ReadingStore> store(new ReadingStore(db));
  store->moved_aside_ = std::move(moved_aside);
  store->moved_aside_reason_ = std::move(moved_aside_reason);
  absl::MutexLock lock(&store->mutex_);
  CARBONROUTE_RETURN_IF_ERROR(store->PrepareStatements());
  return store;
}

absl::Status ReadingStore::PrepareStatements() {
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement put,
      Statement::Prepare(
          db_, absl::StrCat(
                   "INSERT INTO readings (", kColumns,
                   ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                   "ON CONFLICT (provider, location, emissions_type, valid_from) DO UPDATE SET "
                   "valid_to = excluded.valid_to, value = excluded.value, unit = excluded.unit, "
                   "estimated = excluded.estimated, fetched_at = excluded.fetched_at "
                   "WHERE readings.estimated = 1 OR excluded.estimated = 0")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement valid_at,
      Statement::Prepare(db_,
                         absl::StrCat("SELECT ", kColumns, " FROM readings WHERE ", kSeriesMatch,
                                      " AND valid_from <= ?4 AND valid_to > ?4 "
                                      "ORDER BY valid_from DESC LIMIT 1")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement latest_ending_after,
      Statement::Prepare(db_,
                         absl::StrCat("SELECT ", kColumns, " FROM readings WHERE ", kSeriesMatch,
                                      " AND valid_to > ?4 ORDER BY valid_from DESC LIMIT 1")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement has_estimate,
      Statement::Prepare(db_, absl::StrCat("SELECT 1 FROM readings WHERE ", kSeriesMatch,
                                           " AND valid_to > ?4 AND estimated = 1 LIMIT 1")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement delete_forecast_from,
      Statement::Prepare(db_, absl::StrCat("DELETE FROM forecasts WHERE ", kSeriesMatch,
                                           " AND valid_from >= ?4")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement insert_forecast,
      Statement::Prepare(db_, absl::StrCat("INSERT OR REPLACE INTO forecasts (", kColumns,
                                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement forecast_end,
      Statement::Prepare(db_,
                         absl::StrCat("SELECT MAX(valid_to) FROM forecasts WHERE ", kSeriesMatch)));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement forecast_between,
      Statement::Prepare(
          db_, absl::StrCat("SELECT ", kColumns, " FROM forecasts WHERE ", kSeriesMatch,
                            " AND valid_to > ?4 AND valid_from < ?5 ORDER BY valid_from")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement readings_between,
      Statement::Prepare(
          db_, absl::StrCat("SELECT ", kColumns, " FROM readings WHERE ", kSeriesMatch,
                            " AND valid_to > ?4 AND valid_from < ?5 ORDER BY valid_from")));
  statements_.reset(new Statements{
      std::move(put), std::move(valid_at), std::move(latest_ending_after), std::move(has_estimate),
      std::move(delete_forecast_from), std::move(insert_forecast), std::move(forecast_end),
      std::move(forecast_between), std::move(readings_between)});
  return absl::OkStatus();
}

ReadingStore::ReadingStore(sqlite3* db) : db_(db) {}

ReadingStore::~ReadingStore() {
  {
    absl::MutexLock lock(&mutex_);
    statements_.reset();
  }
  sqlite3_close(db_);
}

absl::Status ReadingStore::EndTransaction(absl::Status status) {
  if (status.ok()) status = Exec(db_, "COMMIT");
  // After a failed statement, and after a failed COMMIT (SQLITE_FULL may
  // leave the transaction open: https://www.sqlite.org/lang_transaction.html),
  // roll back, or every later write would join a transaction never committed.
  if (sqlite3_get_autocommit(db_) == 0) static_cast<void>(Exec(db_, "ROLLBACK"));
  return status;
}

absl::Status ReadingStore::AfterWrite(absl::Status status) {
  if (absl::IsResourceExhausted(status)) {
    // The write-ahead log is checkpointed only after a commit that leaves it
    // over 1000 pages; a checkpoint now lets the next writes reuse its space
    // instead of growing it. PASSIVE: it never waits for another process's
    // readers (https://www.sqlite.org/c3ref/wal_checkpoint_v2.html). It
    // fails, harmlessly, when the database file itself cannot grow.
    sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  }
  return status;
}

absl::StatusOr<bool> ReadingStore::Put(const IntensityRecord& record) {
  CARBONROUTE_RETURN_IF_ERROR(Validate(record));
  absl::MutexLock lock(&mutex_);
  Statement& put = statements_->put;
  BindRecord(put, record);
  CARBONROUTE_RETURN_IF_ERROR(AfterWrite(put.Run()));
  return sqlite3_changes(db_) > 0;
}

absl::StatusOr<int64_t> ReadingStore::PutMany(const std::vector<IntensityRecord>& records) {
  for (const IntensityRecord& record : records) CARBONROUTE_RETURN_IF_ERROR(Validate(record));
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_RETURN_IF_ERROR(AfterWrite(Exec(db_, "BEGIN IMMEDIATE")));
  int64_t written = 0;
  absl::Status status;
  for (const IntensityRecord& record : records) {
    Statement& put = statements_->put;
    BindRecord(put, record);
    status = put.Run();
    if (!status.ok()) break;
    written += sqlite3_changes(db_);
  }
  CARBONROUTE_RETURN_IF_ERROR(AfterWrite(EndTransaction(status)));
  return written;
}

absl::StatusOr<std::optional<IntensityRecord>> ReadingStore::QueryRecord(
    Statement& query, const IntensitySeries& series, absl::Time t) {
  BindSeries(query, series);
  query.Bind(4, Seconds(t));
  absl::StatusOr<bool> row = query.Step();
  std::optional<IntensityRecord> record;
  if (row.ok() && *row) record = RecordAt(query);
  query.Reset();
  if (!row.ok()) return row.status();
  return record;
}

absl::StatusOr<std::optional<IntensityRecord>> ReadingStore::ValidAt(const IntensitySeries& series,
                                                                     absl::Time t) {
  absl::MutexLock lock(&mutex_);
  return QueryRecord(statements_->valid_at, series, t);
}

absl::StatusOr<std::optional<IntensityRecord>> ReadingStore::LatestEndingAfter(
    const IntensitySeries& series, absl::Time t) {
  absl::MutexLock lock(&mutex_);
  return QueryRecord(statements_->latest_ending_after, series, t);
}

absl::StatusOr<bool> ReadingStore::HasEstimateEndingAfter(const IntensitySeries& series,
                                                          absl::Time t) {
  absl::MutexLock lock(&mutex_);
  Statement& query = statements_->has_estimate;
  BindSeries(query, series);
  query.Bind(4, Seconds(t));
  absl::StatusOr<bool> row = query.Step();
  query.Reset();
  return row;
}

absl::Status ReadingStore::PutForecast(const IntensitySeries& series,
                                       const std::vector<IntensityRecord>& points) {
  if (points.empty()) return absl::OkStatus();
  for (const IntensityRecord& point : points) CARBONROUTE_RETURN_IF_ERROR(Validate(point));
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_RETURN_IF_ERROR(AfterWrite(Exec(db_, "BEGIN IMMEDIATE")));
  absl::Status status = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) -> absl::Status {
    Statement& remove = statements_->delete_forecast_from;
    BindSeries(remove, series);
    remove.Bind(4, Seconds(points.front().valid_from));
    CARBONROUTE_RETURN_IF_ERROR(remove.Run());
    Statement& insert = statements_->insert_forecast;
    for (const IntensityRecord& point : points) {
      IntensityRecord keyed = point;
      keyed.series = series;
      BindRecord(insert, keyed);
      CARBONROUTE_RETURN_IF_ERROR(insert.Run());
    }
    return absl::OkStatus();
  }();
  return AfterWrite(EndTransaction(status));
}

absl::StatusOr<std::optional<absl::Time>> ReadingStore::ForecastEnd(const IntensitySeries& series) {
  absl::MutexLock lock(&mutex_);
  Statement& query = statements_->forecast_end;
  BindSeries(query, series);
  absl::StatusOr<bool> row = query.Step();
  std::optional<absl::Time> end;
  if (row.ok() && *row && !query.IsNull(0)) end = absl::FromUnixSeconds(query.Int(0));
  query.Reset();
  if (!row.ok()) return row.status();
  return end;
}

absl::Status ReadingStore::RecordFetch(const IntensitySeries& series, absl::string_view kind,
                                       absl::Time t) {
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement put,
      Statement::Prepare(db_,
                         "INSERT OR REPLACE INTO fetches (provider, location, emissions_type, "
                         "kind, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5)"));
  BindSeries(put, series);
  put.Bind(4, kind).Bind(5, Seconds(t));
  return AfterWrite(put.Run());
}

absl::Status ReadingStore::CountProviderCalls(absl::string_view provider, absl::Time month,
                                              int64_t calls) {
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement put,
      Statement::Prepare(db_,
                         "INSERT INTO provider_calls (provider, month, calls) VALUES (?1, ?2, ?3) "
                         "ON CONFLICT (provider, month) DO UPDATE SET calls = calls + ?3"));
  put.Bind(1, provider).Bind(2, Seconds(month)).Bind(3, calls);
  return AfterWrite(put.Run());
}

absl::StatusOr<int64_t> ReadingStore::ProviderCalls(absl::string_view provider, absl::Time month) {
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement query,
      Statement::Prepare(db_,
                         "SELECT calls FROM provider_calls WHERE provider = ?1 AND month = ?2"));
  query.Bind(1, provider).Bind(2, Seconds(month));
  CARBONROUTE_ASSIGN_OR_RETURN(bool row, query.Step());
  return row ? query.Int(0) : int64_t{0};
}

absl::StatusOr<std::optional<absl::Time>> ReadingStore::LastFetch(const IntensitySeries& series,
                                                                  absl::string_view kind) {
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_ASSIGN_OR_RETURN(
      Statement query, Statement::Prepare(db_, absl::StrCat("SELECT fetched_at FROM fetches WHERE ",
                                                            kSeriesMatch, " AND kind = ?4")));
  BindSeries(query, series);
  query.Bind(4, kind);
  CARBONROUTE_ASSIGN_OR_RETURN(bool row, query.Step());
  if (!row) return std::optional<absl::Time>();
  return std::optional<absl::Time>(absl::FromUnixSeconds(query.Int(0)));
}

absl::StatusOr<std::vector<IntensityRecord>> ReadingStore::ForecastBetween(
    const IntensitySeries& series, absl::Time from, absl::Time to) {
  absl::MutexLock lock(&mutex_);
  return RecordsBetween(statements_->forecast_between, series, from, to);
}

absl::StatusOr<std::vector<IntensityRecord>> ReadingStore::ReadingsBetween(
    const IntensitySeries& series, absl::Time from, absl::Time to) {
  absl::MutexLock lock(&mutex_);
  return RecordsBetween(statements_->readings_between, series, from, to);
}

absl::StatusOr<std::vector<IntensityRecord>> ReadingStore::RecordsBetween(
    Statement& query, const IntensitySeries& series, absl::Time from, absl::Time to) {
  BindSeries(query, series);
  query.Bind(4, Seconds(from)).Bind(5, SecondsRoundedUp(to));
  std::vector<IntensityRecord> points;
  absl::StatusOr<bool> row;
  while ((row = query.Step()).ok() && *row) points.push_back(RecordAt(query));
  query.Reset();
  if (!row.ok()) return row.status();
  return points;
}

absl::StatusOr<int64_t> ReadingStore::Prune(absl::Time cutoff) {
  absl::MutexLock lock(&mutex_);
  int64_t deleted = 0;
  for (const char* table : {"readings", "forecasts"}) {
    CARBONROUTE_ASSIGN_OR_RETURN(
        Statement remove,
        Statement::Prepare(db_, absl::StrCat("DELETE FROM ", table, " WHERE valid_to < ?1")));
    remove.Bind(1, Seconds(cutoff));
    CARBONROUTE_RETURN_IF_ERROR(AfterWrite(remove.Run()));
    deleted += sqlite3_changes(db_);
  }
  return deleted;
}

absl::StatusOr<int64_t> ReadingStore::CountReadings() {
  absl::MutexLock lock(&mutex_);
  CARBONROUTE_ASSIGN_OR_RETURN(Statement count,
                               Statement::Prepare(db_, "SELECT COUNT(*) FROM readings"));
  CARBONROUTE_ASSIGN_OR_RETURN(bool has_row, count.Step());
  return has_row ? count.Int(0) : 0;
}

}  // namespace carbonroute::cache
