#include "base/usage.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace carbonroute {

std::size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string ClosestMatch(absl::string_view word, const std::vector<std::string>& known) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : known) {
    const std::size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::vector<std::string> UnknownOptions(const std::vector<std::string>& args,
                                        const std::vector<std::string>& long_names) {
  std::vector<std::string> unknown;
  for (const std::string& arg : args) {
    if (arg.size() < 3 || arg[0] != '-' || arg[1] != '-') continue;
    const std::string name =
        arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
    if (std::find(long_names.begin(), long_names.end(), name) != long_names.end()) continue;
    const std::string closest = ClosestMatch(name, long_names);
    unknown.push_back(
        absl::StrCat("unknown option --", name,
                     closest.empty() ? "" : absl::StrCat("; did you mean --", closest, "?")));
  }
  return unknown;
}

}  // namespace carbonroute
