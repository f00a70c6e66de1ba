// File: cache/sqlite_statement.h  (internal to cache/)
//
// RAII over sqlite3_stmt with Status-returning steps. Only cache/*.cc include it.
#ifndef CARBONROUTE_CACHE_SQLITE_STATEMENT_H_
#define CARBONROUTE_CACHE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::cache {

// kInternal (or kResourceExhausted for SQLITE_FULL, kUnavailable for
// SQLITE_BUSY/LOCKED, kDataLoss for SQLITE_CORRUPT/NOTADB) with SQLite's own
// message and `what`.
absl::Status SqliteError(sqlite3* db, int code, absl::string_view what);

// Runs SQL that returns no rows (schema, pragmas, transactions).
absl::Status Exec(sqlite3* db, const char* sql);

class Statement {
 public:
  static absl::StatusOr<Statement> Prepare(sqlite3* db, absl::string_view sql);
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
    other.stmt_ = nullptr;
  }
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  // Parameters are 1-based, as in SQLite.
  Statement& Bind(int index, absl::string_view text);
  Statement& Bind(int index, int64_t number);
  Statement& Bind(int index, double number);

  // true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Step() expecting no row; resets for reuse.
  absl::Status Run();
  void Reset();

  bool IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }
  double Double(int column) const { return sqlite3_column_double(stmt_, column); }
  std::string Text(int column) const;

 private:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace carbonroute::cache

#endif  // CARBONROUTE_CACHE_SQLITE_STATEMENT_H_
