#include "base/backoff.h"

#include <algorithm>
#include <cmath>

namespace carbonroute {

absl::Duration JitteredBackoff(absl::Duration initial, absl::Duration max, int failures,
                               std::mt19937_64& random) {
  const double doublings = std::min(failures - 1, 30);
  const absl::Duration base = std::min(initial * std::pow(2.0, doublings), max);
  return base * std::uniform_real_distribution<double>(0.5, 1.5)(random);
}

}  // namespace carbonroute
