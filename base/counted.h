// File: base/counted.h
//
// A count with its noun, as people write it: "1 location", "2 locations",
// "0 nodes". For messages, logs and health answers.
// Thread safety: pure.
#ifndef CARBONROUTE_BASE_COUNTED_H_
#define CARBONROUTE_BASE_COUNTED_H_

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace carbonroute {

// `plural` defaults to `singular` + "s".
inline std::string Counted(std::size_t n, absl::string_view singular,
                           absl::string_view plural = "") {
  if (n == 1) return absl::StrCat(n, " ", singular);
  return plural.empty() ? absl::StrCat(n, " ", singular, "s") : absl::StrCat(n, " ", plural);
}

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_COUNTED_H_
