// File: ledger/pass_intervals.h
//
// The intervals a controller books: each pass of a key (a policy, a target)
// closes the interval since that key's previous pass. The first pass of a key
// only opens one; an interval longer than `longest` (the controller was down
// or not leading, so it cannot vouch for what ran) is closed as a gap, to be
// counted as skipped (ledger::kGap), never priced.
//
// Thread safety: none (one controller's pass thread).
#ifndef CARBONROUTE_LEDGER_PASS_INTERVALS_H_
#define CARBONROUTE_LEDGER_PASS_INTERVALS_H_

#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"

namespace carbonroute::ledger {

struct ClosedInterval {
  absl::Duration length;
  bool gap = false;  // longer than the longest interval: not to be priced
};

class PassIntervals {
 public:
  explicit PassIntervals(absl::Duration longest) : longest_(longest) {}

  // The interval the pass of `key` at `now` closes (and the next opens);
  // nullopt at the key's first pass and when no time has passed.
  std::optional<ClosedInterval> Close(const std::string& key, absl::Time now);
  // Whether a pass of `key` at `now` would close an interval to price.
  bool WouldPrice(const std::string& key, absl::Time now) const;
  // Keys starting with `prefix`: their next pass opens a new interval.
  void Forget(const std::string& prefix);

 private:
  const absl::Duration longest_;
  std::map<std::string, absl::Time> last_;  // key → its previous pass
};

}  // namespace carbonroute::ledger

#endif  // CARBONROUTE_LEDGER_PASS_INTERVALS_H_
