// File: base/usage.h
//
// Command-line usage errors for both binaries: every argument or usage error
// exits 2 (docs/scheduler-lite.md, "Exit codes"), and a mistyped word is answered with the
// closest one the program knows.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_BASE_USAGE_H_
#define CARBONROUTE_BASE_USAGE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace carbonroute {

// The exit code for a command-line parser's result: 0 stays 0 (--help,
// --version), anything else is a usage error, 2.
constexpr int kUsageExitCode = 2;
constexpr int UsageExitCode(int parser_code) { return parser_code == 0 ? 0 : kUsageExitCode; }

// The Levenshtein (edit) distance between `a` and `b`.
std::size_t EditDistance(absl::string_view a, absl::string_view b);

// The element of `known` closest to `word` by edit distance, if it is within
// max(2, |word| / 3) edits (a typo, not another word); "" otherwise.
std::string ClosestMatch(absl::string_view word, const std::vector<std::string>& known);

// For each "--name" (or "--name=value") of `args` that is not one of
// `long_names` (without dashes): "unknown option --name" and, when one is
// close, "; did you mean --closest?". Empty when every option is known.
std::vector<std::string> UnknownOptions(const std::vector<std::string>& args,
                                        const std::vector<std::string>& long_names);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_USAGE_H_
