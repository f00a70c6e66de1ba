// File: kube/lease_election.h
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
// A takeover or renewal rewrites only the Lease's spec; its labels and
// annotations are kept (the PUT carries the metadata that was read).
//
// Ownership: borrows the KubeClient. Thread safety: one thread.
#ifndef CARBONROUTE_KUBE_LEASE_ELECTION_H_
#define CARBONROUTE_KUBE_LEASE_ELECTION_H_

#include <string>

#include "absl/time/time.h"
#include "kube/kube_client.h"

namespace carbonroute::kube {

struct LeaseOptions {
  std::string namespace_name;  // where the Lease lives
  std::string name;            // e.g. "carbonroute-hold"
  std::string identity;        // this replica: the Pod's name, else the host name and PID
  absl::Duration duration = absl::Seconds(15);
};

// This replica's name in a Lease: $POD_NAME (the downward API), else the
// host's name and the process id ("host-1234").
std::string ReplicaIdentity();

class LeaseElection {
 public:
  LeaseElection(LeaseOptions options, const KubeClient& client)
      : options_(std::move(options)), client_(client) {}

  // Acquires or renews the Lease at `now`; whether this replica leads.
  bool Tick(absl::Time now);
  bool leading() const { return leading_; }
  // When Tick should run next.
  absl::Time next_tick() const { return next_tick_; }
  const std::string& last_error() const { return last_error_; }

 private:
  bool Write(const absl::StatusOr<std::string>& written);

  const LeaseOptions options_;
  const KubeClient& client_;
  bool leading_ = false;
  absl::Time next_tick_ = absl::InfinitePast();
  std::string last_error_;
};

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_LEASE_ELECTION_H_
