// File: collector/readiness.h
//
// The collector's two probe answers, kept apart as Kubernetes means them
// (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/):
//
//   liveness  (/livez)   this process is alive and its loops turn: every loop
//                        registered with the ProgressMonitor (the poll loops,
//                        the prober) kept its last promise. A slow or hanging
//                        provider does not make it fail: each provider call is
//                        bounded by its timeout, which the poll loop promised.
//   readiness (/readyz)  it has something to serve: a reading is exported (a
//                        cached one counts: with a cache, ready at once), or
//                        the first poll has ended, or poll.first_poll_deadline
//                        (30 s by default) has passed since start (a hanging upstream and an empty
//                        cache: ready within that, with what it has). Once
//                        ready, it stays ready: an upstream outage must not
//                        empty the carbon role's Service and cut its readers
//                        off from cached forecasts.
//
// /healthz keeps its meaning (200 once the first poll has ended).
//
// Thread safety: every method is safe from any thread (the HTTP server's).
// Ownership: borrows the monitor and the metrics, which must outlive it.
#ifndef CARBONROUTE_COLLECTOR_READINESS_H_
#define CARBONROUTE_COLLECTOR_READINESS_H_

#include <atomic>
#include <string>

#include "absl/time/time.h"
#include "base/progress_monitor.h"
#include "exporter/collector_metrics.h"

namespace carbonroute::collector {

struct ProbeAnswer {
  bool ok = false;
  std::string why;  // "ok", or what is missing or stuck
};

class Readiness {
 public:
  Readiness(const ProgressMonitor& progress, const exporter::CollectorMetrics& metrics,
            absl::Time started, absl::Duration first_poll_deadline)
      : progress_(progress),
        metrics_(metrics),
        started_(started),
        first_poll_deadline_(first_poll_deadline) {}

  void FirstPollDone() { first_poll_done_ = true; }
  bool first_poll_done() const { return first_poll_done_.load(); }

  ProbeAnswer Live(absl::Time now) const;
  ProbeAnswer Ready(absl::Time now) const;

 private:
  const ProgressMonitor& progress_;
  const exporter::CollectorMetrics& metrics_;
  const absl::Time started_;
  const absl::Duration first_poll_deadline_;
  std::atomic<bool> first_poll_done_{false};
  mutable std::atomic<bool> ready_{false};  // latched
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_READINESS_H_
