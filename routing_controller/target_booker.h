// File: routing_controller/target_booker.h
//
// What the routing controller books per target per pass (route_ledger.h says
// what an interval is and how it is priced): enforced, the shares the target
// held (`ran`) against the mesh's default or its owner's weights
// (`alternative`); in a dry run (shadow mode), what carbonroute decided at the
// target's previous pass against what ran, `decided` kept for the next pass.
//
// Ownership: borrows the ledger (null: nothing is booked).
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_TARGET_BOOKER_H_
#define CARBONROUTE_ROUTING_CONTROLLER_TARGET_BOOKER_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/time/time.h"
#include "ledger/ledger.h"
#include "routing/route_plan.h"
#include "routing/routing_policy.h"
#include "routing_controller/route_ledger.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

// What one target serves in a pass: the requests measured per origin (absent: not
// measured) and the ready endpoint Pods serving them, by namespace.
struct TargetDemand {
  std::optional<std::map<std::string, double>> requests_per_second;
  std::map<std::string, std::set<std::string>> pods;
};

class TargetBooker {
 public:
  // Longer than three resyncs, the controller cannot vouch for what ran.
  TargetBooker(ledger::Ledger* ledger, const RoutingControllerOptions& options);

  bool enabled() const { return route_ledger_ != nullptr; }
  // Books the target `key`'s interval (see above).
  void Book(const RoutingPolicy& policy, const std::string& key, const RoutePlan& plan,
            const TargetDemand& demand, bool moved, OriginShares ran, OriginShares alternative,
            OriginShares decided, absl::Time now);
  // The targets of a deleted policy (keys starting with `prefix`, its uid and "/").
  void Forget(const std::string& prefix);

 private:
  const bool dry_run_;
  std::unique_ptr<RouteLedger> route_ledger_;  // null without a ledger
  // Booking key → the shares decided at its previous pass (the dry run's chosen basis).
  std::map<std::string, OriginShares> would_book_;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_TARGET_BOOKER_H_
