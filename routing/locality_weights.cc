#include "routing/locality_weights.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace carbonroute::routing {
namespace {

constexpr int kWhole = 100;  // Istio's distribute weights are percentages

// Ascending order of this key is the order ties are broken in (and the row's order).
auto TieKey(const DestinationShare& share) { return std::tie(share.rtt, share.locality); }

}  // namespace

absl::StatusOr<std::vector<LocalityWeight>> PercentWeights(
    const std::vector<DestinationShare>& shares) {
  if (shares.empty()) return absl::InvalidArgumentError("no destination to weight");
  double total = 0;
  std::set<std::string> seen;
  for (const DestinationShare& share : shares) {
    if (share.locality.empty()) return absl::InvalidArgumentError("a destination has no locality");
    if (!seen.insert(share.locality).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("locality \"", share.locality, "\" is given twice"));
    }
    if (!std::isfinite(share.share) || share.share < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("share of \"", share.locality, "\": ", share.share, " is not a number ≥ 0"));
    }
    total += share.share;
  }
  if (!std::isfinite(total)) return absl::InvalidArgumentError("the shares' sum is not finite");
  if (!(total > 0)) return absl::InvalidArgumentError("every destination's share is 0");

  struct Part {
    const DestinationShare* share;
    int percent;
    double remainder;
  };
  std::vector<Part> parts;
  parts.reserve(shares.size());
  int given = 0;
  for (const DestinationShare& share : shares) {
    const double exact = kWhole * (share.share / total);
    const int floor = std::min(kWhole, static_cast<int>(std::floor(exact)));
    parts.push_back({&share, floor, exact - floor});
    given += floor;
  }
  // The points left, one each, to the largest remainders (ties: RTT, then
  // name). The floors sum to at most 100 and the remainders to the points
  // left, so fewer points are left than there are destinations, but for a
  // floating-point error in `exact` (99.999… for one destination): hence the wrap.
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    if (a.remainder != b.remainder) return a.remainder > b.remainder;
    return TieKey(*a.share) < TieKey(*b.share);
  });
  for (std::size_t i = 0; given < kWhole; i = (i + 1) % parts.size(), ++given) ++parts[i].percent;

  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    if (a.percent != b.percent) return a.percent > b.percent;
    return TieKey(*a.share) < TieKey(*b.share);
  });
  std::vector<LocalityWeight> row;
  for (const Part& part : parts) {
    if (part.percent > 0) row.push_back({part.share->locality, part.percent});
  }
  return row;
}

}  // namespace carbonroute::routing
