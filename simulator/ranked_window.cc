#include "simulator/ranked_window.h"

#include <algorithm>
#include <numeric>

namespace carbonroute::simulator {

RankedWindow::RankedWindow(const std::vector<double>& values)
    : values_(values),
      sorted_(values),
      rank_(values.size()),
      count_(values.size() + 1),
      sum_(values.size() + 1) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return values[a] != values[b] ? values[a] < values[b] : a < b;
  });
  for (std::size_t r = 0; r < order.size(); ++r) rank_[order[r]] = r + 1;
  std::sort(sorted_.begin(), sorted_.end());
  while (top_ * 2 <= values.size()) top_ *= 2;
}

void RankedWindow::Update(std::size_t hour, int sign) {
  size_ = static_cast<std::size_t>(static_cast<long>(size_) + sign);
  const double value = sign * values_[hour];
  for (std::size_t i = rank_[hour]; i < count_.size(); i += i & (~i + 1)) {
    count_[i] += sign;
    sum_[i] += value;
  }
}

double RankedWindow::SmallestSum(std::size_t k) const {
  // Ranks are distinct, so the prefix holding exactly k values exists.
  std::size_t position = 0;
  double total = 0;
  for (std::size_t step = top_; step > 0; step /= 2) {
    const std::size_t next = position + step;
    if (next < count_.size() && static_cast<std::size_t>(count_[next]) <= k) {
      position = next;
      k -= static_cast<std::size_t>(count_[next]);
      total += sum_[next];
    }
  }
  return total;
}

std::size_t RankedWindow::CountBelow(double value) const {
  // Values below `value` hold the ranks 1 … r; the window's count of those.
  std::size_t r = static_cast<std::size_t>(std::lower_bound(sorted_.begin(), sorted_.end(), value) -
                                           sorted_.begin());
  long count = 0;
  for (; r > 0; r -= r & (~r + 1)) count += count_[r];
  return static_cast<std::size_t>(count);
}

}  // namespace carbonroute::simulator
