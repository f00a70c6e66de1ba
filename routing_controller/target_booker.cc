#include "routing_controller/target_booker.h"

#include <utility>

namespace carbonroute::routing {

TargetBooker::TargetBooker(ledger::Ledger* ledger, const RoutingControllerOptions& options)
    : dry_run_(options.dry_run) {
  if (ledger == nullptr) return;
  route_ledger_ = std::make_unique<RouteLedger>(
      *ledger, options.dry_run ? ledger::LedgerMode::kShadow : ledger::LedgerMode::kEnforced,
      3 * options.resync);
  if (options.pods_meter) route_ledger_->SetMeter(options.pods_meter);
}

void TargetBooker::Book(const RoutingPolicy& policy, const std::string& key, const RoutePlan& plan,
                        const TargetDemand& demand, bool moved, OriginShares ran,
                        OriginShares alternative, OriginShares decided, absl::Time now) {
  if (route_ledger_ == nullptr) return;
  RouteBooking booking{.key = key,
                       .namespace_name = policy.namespace_name,
                       .joules_per_request = policy.joules_per_request,
                       .requests_per_second = demand.requests_per_second,
                       .pods = demand.pods,
                       .plan = &plan,
                       .moved = moved};
  if (dry_run_) {  // what it would have written at the previous pass, against what ran
    const auto previous = would_book_.find(key);
    booking.chosen = previous == would_book_.end() ? ran : previous->second;
    booking.counterfactual = std::move(ran);
    would_book_[key] = std::move(decided);
  } else {
    booking.chosen = std::move(ran);
    booking.counterfactual = std::move(alternative);
  }
  route_ledger_->Book(booking, now);
}

void TargetBooker::Forget(const std::string& prefix) {
  std::erase_if(would_book_,
                [&prefix](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
  if (route_ledger_ != nullptr) route_ledger_->Forget(prefix);
}

}  // namespace carbonroute::routing
