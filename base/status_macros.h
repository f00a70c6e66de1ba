// File: base/status_macros.h
//
// CARBONROUTE_RETURN_IF_ERROR / CARBONROUTE_ASSIGN_OR_RETURN, mirroring
// absl/status/status_macros.h, which Debian's Abseil (20220623) does not have.
#ifndef CARBONROUTE_BASE_STATUS_MACROS_H_
#define CARBONROUTE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CARBONROUTE_STATUS_CONCAT_INNER_(a, b) a##b
#define CARBONROUTE_STATUS_CONCAT_(a, b) CARBONROUTE_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status); returns it from the enclosing function if not OK.
#define CARBONROUTE_RETURN_IF_ERROR(expr)                                      \
  do {                                                                         \
    if (absl::Status _cr_status = (expr); !_cr_status.ok()) return _cr_status; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, else
// moves the value into `lhs` (which may be a declaration, e.g. `auto x`).
#define CARBONROUTE_ASSIGN_OR_RETURN(lhs, rexpr)                                               \
  CARBONROUTE_ASSIGN_OR_RETURN_IMPL_(CARBONROUTE_STATUS_CONCAT_(_cr_statusor_, __LINE__), lhs, \
                                     rexpr)

// `lhs` cannot be parenthesised: it may be a declaration.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CARBONROUTE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                       \
  if (!statusor.ok()) return std::move(statusor).status();       \
  lhs = *std::move(statusor)
// NOLINTEND(bugprone-macro-parentheses)

#endif  // CARBONROUTE_BASE_STATUS_MACROS_H_
