// File: placement/move_payback.h
//
// What moving a running workload costs and earns, the one rule the
// re-placement controller (rebalance/) and the simulator's re-placement
// (simulator/replacement.h) share (docs/rebalance.md "When a move pays"):
//   gap g           the source's minus the destination's intensity, gCO2eq/kWh:
//                   now (the current readings), and expected over the horizon
//                   (the forecasts' means over the window that covers it,
//                   contract/forecast_windows.h, when both have one; else the
//                   gap now: persistence);
//   cost            the restart's energy E (J, declared, or power × start-up
//                   time) priced where it restarts: E / 3.6e6 × c_dest grams;
//   saving          the workload's power P (W) over the horizon H at the
//                   expected gap: P × H / 3.6e6 × g_expected grams;
//   payback         E × c_dest / (P × g_now): how long the gap now takes to earn
//                   the cost back;
//   forecast closes the forecasts' gap over the window covering the payback
//                   is ≤ 0: the move would not pay back before the gap closes.
// A move pays when the gap now exceeds the tolerance, the forecast does not
// close it before the payback, and the expected saving exceeds the cost.
//
// Units: intensities in gCO2eq/kWh, power in W, energy in J, grams gCO2eq.
// Thread safety: pure functions.
#ifndef CARBONROUTE_PLACEMENT_MOVE_PAYBACK_H_
#define CARBONROUTE_PLACEMENT_MOVE_PAYBACK_H_

#include <map>
#include <string>

#include "absl/time/time.h"

namespace carbonroute::placement {

// One grid location's intensity now and its forecast means by window ("1h", "4h", "24h").
struct GridView {
  double grams_per_kwh = 0;
  std::map<std::string, double> forecast_mean;
};

struct MoveTerms {
  double watts = 0;           // the workload's power, > 0
  double restart_joules = 0;  // one restart's energy
  absl::Duration horizon;     // the saving is counted over this
  double tolerance = 0;       // gCO2eq/kWh: the gap now must exceed it
};

struct MovePrice {
  double gap_now = 0;       // gCO2eq/kWh
  double expected_gap = 0;  // over the horizon
  std::string gap_basis;    // "current" or "forecast 4h"
  double saving_grams = 0;  // expected over the horizon
  double cost_grams = 0;    // the restart at the destination
  absl::Duration payback = absl::InfiniteDuration();
  bool forecast_closes_gap = false;

  // The gap exceeds the tolerance, the forecast keeps it open and the saving exceeds the cost.
  bool pays(double tolerance) const {
    return gap_now > tolerance && !forecast_closes_gap && saving_grams > cost_grams;
  }
  // Why it does not pay, for people ("" when it pays).
  std::string WhyNot(double tolerance) const;
};

MovePrice PriceMove(const GridView& from, const GridView& to, const MoveTerms& terms);

}  // namespace carbonroute::placement

#endif  // CARBONROUTE_PLACEMENT_MOVE_PAYBACK_H_
