// File: hold/lease_election.h
//
// One acting replica among several: a coordination.k8s.io/v1 Lease
// (https://kubernetes.io/docs/concepts/architecture/leases/), the way
// client-go's leaderelection package uses it:
//   - no Lease: create it (POST) with spec.holderIdentity = this replica;
//   - held by this replica: renew (PUT with the read resourceVersion: a
//     concurrent writer gets 409 Conflict and loses);
//   - held by another whose renewTime + leaseDurationSeconds has passed:
//     take it over (PUT, leaseTransitions + 1);
//   - held by another, not expired: not the leader.
// Tick() runs at least every duration / 3 while leading; any failure (API
// unreachable, 409, a malformed Lease) means not leading until the next
// Tick, so two replicas never act at once unless clocks differ by more than
// the lease duration.
//
// Ownership: borrows the KubeApi. Thread safety: one thread.
#ifndef CARBONROUTE_HOLD_LEASE_ELECTION_H_
#define CARBONROUTE_HOLD_LEASE_ELECTION_H_

#include <string>

#include "absl/time/time.h"
#include "hold/kube_api.h"

namespace carbonroute::hold {

struct LeaseOptions {
  std::string namespace_name;  // where the Lease lives
  std::string name = "carbonroute-hold";
  std::string identity;  // this replica: the Pod's name, else the host name and PID
  absl::Duration duration = absl::Seconds(15);
};

class LeaseElection {
 public:
  LeaseElection(LeaseOptions options, KubeApi& api) : options_(std::move(options)), api_(api) {}

  // Acquires or renews the Lease at `now`; whether this replica leads.
  bool Tick(absl::Time now);
  bool leading() const { return leading_; }
  // When Tick should run next.
  absl::Time next_tick() const { return next_tick_; }
  const std::string& last_error() const { return last_error_; }

 private:
  bool Write(const std::string& method, const std::string& path, const std::string& body);

  const LeaseOptions options_;
  KubeApi& api_;
  bool leading_ = false;
  absl::Time next_tick_ = absl::InfinitePast();
  std::string last_error_;
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_LEASE_ELECTION_H_
