// File: prober/prober.h
//
// This node's row of the RTT matrix, measured: probes each peer on its
// ProbeSchedule through a ProbeTransport, keeps RttStatistics per peer and
// exports them through CollectorMetrics:
//   carbonroute_rtt_seconds{source, target, method="measured"}  smoothed RTT, only while fresh
//   carbonroute_probe_rtt_seconds{source, target}               histogram of every answered probe
//   carbonroute_probe_loss_ratio{source, target}                loss over the last `window` probes
//   carbonroute_probe_sent_total / _received_total{source, target}
// `source` is this node's name, `target` the peer's configured name (not its IP).
//
// A probe is lost when no answer arrives within `timeout`; an answer after it
// is a late reply and stays a loss. A probe that cannot be sent (the name does
// not resolve, no route) counts as sent and lost. Freshness: the smoothed RTT
// is exported only while the newest answer is younger than `stale_after`
// (default 5 × interval + timeout), counted from when the answer arrived; the
// loop wakes at that deadline, so a peer that falls silent loses its
// carbonroute_rtt_seconds{method="measured"} within stale_after + one tick.
//
// The loop wakes on a grid of ticks (tick = interval / 50, kept within
// 1–20 ms): each wake drains the replies that arrived since the last one,
// expires timed-out probes, then sends every probe that has come due, so at
// 1000 peers a wake handles about twenty probes instead of one. A probe
// leaves at most one tick after its jittered due time (20 ms against the
// 1 s ± 10 % schedule); RTTs are unaffected, since they use the send time and
// the kernel's receive timestamp, not the time the loop woke (why a tick
// grid: bench/README.md).
//
// Host names are resolved when a peer is added and again every
// `resolve_interval` (IP literals once, in place), through the Resolver
// (getaddrinfo by default) on a ResolutionExecutor (a background thread by
// default), so a slow DNS server delays no probe: the last address is probed
// until a new one comes.
// Until a name first resolves nothing is sent to it; once its resolution
// has failed, each due probe counts as lost (loss 1.0 for a name that never
// resolves). A failed resolution is retried after interval, 2 × interval,
// 4 × interval, ... up to resolve_interval, not on every probe.
//
// SetTargets replaces the peer set; a peer no longer listed has every series
// deleted, not left stale.
//
// Zones: once this node's zone is known (SetSourceZone), every `interval`
// the median of the fresh smoothed RTTs to the peers of each zone is
// exported as carbonroute_zone_rtt_seconds{source_zone, target_zone}; a zone
// with no fresh peer has no series. Peers without a zone are left out.
//
// Probe jitter and echo tokens come from a seed that is random by default, so
// collectors started at once (a DaemonSet rollout) neither probe in lockstep
// nor use predictable tokens.
//
// Ownership: borrows the transport, the clock, the metrics and the observer;
// all must outlive it. Owns the executor.
// Thread safety: Run() on one thread; SetTargets() and Stop() from any thread.
#ifndef CARBONROUTE_PROBER_PROBER_H_
#define CARBONROUTE_PROBER_PROBER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/progress_monitor.h"
#include "config/collector_config.h"
#include "exporter/collector_metrics.h"
#include "prober/name_resolution.h"
#include "prober/probe_schedule.h"
#include "prober/probe_transport.h"
#include "prober/rtt_statistics.h"

namespace carbonroute::prober {

// One probe's result, as reported to a ProbeObserver (after the metrics are updated).
struct ProbeOutcome {
  const std::string& target;
  std::optional<absl::Duration> rtt;  // nullopt: lost
  const RttStatistics& stats;
  bool fresh;  // whether the smoothed RTT is exported
};

// Told of every probe result, on the loop's thread (tests, benchmarks).
class ProbeObserver {
 public:
  virtual ~ProbeObserver() = default;
  virtual void OnProbeResult(const ProbeOutcome& outcome) = 0;
};

// What a Prober may be given besides its collaborators; the defaults are the daemon's.
struct ProberOptions {
  Resolver resolver = ResolveWithGetaddrinfo;
  // Where host names are resolved; null: a BackgroundResolver over
  // `resolver`, started for the first host name.
  std::unique_ptr<ResolutionExecutor> executor;
  ProbeObserver* observer = nullptr;  // may be null
  // Where the loop, "prober", promises its next turn (may be null): by the
  // turn's wake time + Prober::kTurnSlack.
  ProgressMonitor* progress = nullptr;
  // Seeds probe jitter and echo tokens; nullopt: a random seed.
  std::optional<uint64_t> seed;
};

class Prober {
 public:
  Prober(std::string source, const ProbeConfig& config, ProbeTransport& transport, Clock& clock,
         exporter::CollectorMetrics& metrics, ProberOptions options = {});

  // The peers to probe (those with an address). Applied by the loop.
  void SetTargets(const std::vector<PeerConfig>& peers);
  // This node's zone, for carbonroute_zone_rtt_seconds ("" = none). Applied by the loop.
  void SetSourceZone(const std::string& zone);

  // Probes until Stop(); returns at once if Stop() came first. Consumes the
  // stop, so Run() may be called again.
  void Run();
  void Stop();

  // The peers probed and those with a fresh measured RTT, as of the last
  // zone-RTT export (every rtt.probe.interval). Thread safety: any thread.
  struct PeerCounts {
    std::size_t peers = 0;
    std::size_t fresh = 0;
  };
  PeerCounts peer_counts() const;

  // How much later than its promise a turn may come before the loop counts as stuck.
  static constexpr absl::Duration kTurnSlack = absl::Seconds(30);

  // The loop's wake granularity for `interval` (see above).
  static absl::Duration Tick(absl::Duration interval);

 private:
  using TargetId = ProbeSchedule::TargetId;
  struct Target {
    PeerConfig peer;
    std::optional<ProbeEndpoint> endpoint;
    bool host_name = false;    // not an IP literal: resolved again every resolve_interval
    bool resolving = false;    // a request is with the background resolver
    int resolve_failures = 0;  // in a row
    absl::Time resolve_again_at = absl::InfinitePast();
    std::string resolve_error;  // the last error logged, to log each change once
    RttStatistics stats;
    // Made on the first result (no series before there is a value), kept so
    // a probe's metrics update needs no lookup; released by RemoveProbeTarget.
    exporter::CollectorMetrics::ProbeSeries* series = nullptr;
    bool exported_fresh = false;  // whether the measured RTT gauge is exported
    explicit Target(std::size_t window) : stats(window) {}
  };
  struct InFlight {
    TargetId target;
    absl::Time sent_at;
  };

  void ApplyPendingTargets(absl::Time now);
  void SendDue(absl::Time now);
  void Answer(const ProbeAnswer& answer, absl::Time now);
  void ExpireTimedOut(absl::Time now);
  // Removes the measured RTT of targets whose newest answer is now older than stale_after.
  void ExpireStale(absl::Time now);
  absl::Time StaleAt(const Target& target) const;
  absl::Time NextWake(absl::Time now);
  void Record(TargetId id, Target& target, absl::Time sent_at, std::optional<absl::Duration> rtt,
              absl::Time now);
  void ResolveNames(absl::Time now);
  void ExportZoneRtts(absl::Time now);
  void ApplyResolution(TargetId id, const absl::StatusOr<ProbeEndpoint>& endpoint, absl::Time now);

  const std::string source_;
  const ProbeConfig config_;
  const absl::Duration stale_after_;
  const absl::Duration tick_;
  ProbeTransport& transport_;
  Clock& clock_;
  exporter::CollectorMetrics& metrics_;
  const Resolver resolver_;
  std::unique_ptr<ResolutionExecutor> executor_;  // made for the first host name if not given
  ProbeObserver* const observer_;
  ProgressMonitor* const progress_;
  const uint64_t seed_;

  ProbeSchedule schedule_;
  // Ids are never reused, so a reply to a removed peer cannot land on a new
  // one. Boxed: a flat table of ~0.5 KB slots at half load wasted a megabyte
  // at 1000 peers.
  absl::flat_hash_map<TargetId, std::unique_ptr<Target>> targets_;
  std::map<std::string, TargetId> ids_;  // peer name → id
  TargetId next_id_ = 0;
  std::vector<TargetId> host_names_;  // the targets with a host name, not an IP literal
  absl::flat_hash_map<uint64_t, InFlight> in_flight_;  // by token
  std::deque<std::pair<absl::Time, uint64_t>>
      expiries_;  // (sent_at + timeout, token), in send order
  // (answer + stale_after, target) for every answer, in answer order; an
  // entry is obsolete once its target has answered again.
  std::deque<std::pair<absl::Time, TargetId>> stale_checks_;
  uint64_t next_token_;
  std::vector<ProbeAnswer> answers_;  // the loop's, reused every turn
  std::string source_zone_;
  absl::Time zone_rtts_at_ = absl::InfinitePast();  // when ExportZoneRtts runs next
  std::set<std::string> exported_zones_;            // target zones with a series

  std::atomic<bool> stop_{false};
  absl::Mutex mutex_;
  std::optional<std::vector<PeerConfig>> pending_ ABSL_GUARDED_BY(mutex_);
  std::optional<std::string> pending_zone_ ABSL_GUARDED_BY(mutex_);
  std::atomic<bool> has_pending_{false};  // set with pending_, read without the lock
  std::atomic<std::size_t> peer_count_{0}, fresh_count_{0};
};

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_PROBER_H_
