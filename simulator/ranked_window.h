// File: simulator/ranked_window.h
//
// A sliding window over a series, by the values' ranks: the sum of its k
// smallest values and the count of its values below a given one, each in
// O(log n) (a Fenwick tree over ranks: Fenwick, "A new data structure for
// cumulative frequency tables", Software: Practice and Experience 24(3),
// 1994). Hours enter and leave in any order; each is in the window at most once.
//
// Ownership: borrows the series, which must outlive it.
// Thread safety: not thread-safe; one per thread.
#ifndef CARBONROUTE_SIMULATOR_RANKED_WINDOW_H_
#define CARBONROUTE_SIMULATOR_RANKED_WINDOW_H_

#include <cstddef>
#include <vector>

namespace carbonroute::simulator {

class RankedWindow {
 public:
  explicit RankedWindow(const std::vector<double>& values);

  void Insert(std::size_t hour) { Update(hour, +1); }
  void Remove(std::size_t hour) { Update(hour, -1); }
  std::size_t size() const { return size_; }

  // The sum of the k smallest values in the window (REQUIRES: k ≤ size()).
  double SmallestSum(std::size_t k) const;
  // How many values in the window are below `value`.
  std::size_t CountBelow(double value) const;

 private:
  void Update(std::size_t hour, int sign);

  const std::vector<double>& values_;
  std::vector<double> sorted_;     // every value, ascending
  std::vector<std::size_t> rank_;  // hour → 1-based rank (distinct: ties by hour)
  std::vector<int> count_;         // Fenwick tree of counts by rank
  std::vector<double> sum_;        // Fenwick tree of values by rank
  std::size_t top_ = 1;            // the highest power of two ≤ n
  std::size_t size_ = 0;
};

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_RANKED_WINDOW_H_
