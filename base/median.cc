#include "base/median.h"

#include <algorithm>

namespace carbonroute {

absl::Duration Median(std::vector<absl::Duration>& values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

}  // namespace carbonroute
