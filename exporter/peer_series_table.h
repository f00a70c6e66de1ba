// File: exporter/peer_series_table.h
//
// The collector's per-peer series, kept in one table and written straight
// into /metrics (exporter/text_exposition.h) instead of through a
// prometheus::Registry, so that a scrape at 10,000 peers neither copies
// every series into prometheus-cpp's MetricFamily structures nor builds the
// page whole (bench/README.md, "A scrape at 10,000 peers"):
//   carbonroute_rtt_seconds{source, target, method}     measured (smoothed, only while fresh) or
//   declared carbonroute_probe_loss_ratio{source, target}        0–1, over the prober's window
//   carbonroute_probe_sent_total{source, target}
//   carbonroute_probe_received_total{source, target}    answered within the timeout
//   carbonroute_probe_rtt_seconds{source, target}       histogram of every answered probe,
//                                                       only while the table has at most
//                                                       histogram_max_peers peers
// Per peer that is 4 series, plus 19 with the histogram (16 buckets, +Inf,
// _sum, _count). The histogram's counts are kept either way, so one switched
// on later starts from the true totals.
//
// One snapshot per scrape: a probe's result changes all of its peer's values
// in one locked step, and Snapshot() copies every value in one locked step,
// so within one page every peer has received_total ≤ sent_total and a
// histogram's _count equals its +Inf bucket. A snapshot costs about 56 bytes
// per peer, plus 136 with histograms, and holds the lock for one pass over
// the peers (about 1 ms at 10,000).
//
// Ownership: a Peer belongs to the table; its reference is valid until
// Remove() of its (source, target).
// Thread safety: every method may be called from any thread; the collector's
// prober updates a given peer from one thread.
#ifndef CARBONROUTE_EXPORTER_PEER_SERIES_TABLE_H_
#define CARBONROUTE_EXPORTER_PEER_SERIES_TABLE_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "exporter/text_exposition.h"

namespace carbonroute::exporter {

class PeerSeriesTable : public ExpositionSource {
 public:
  // The histogram's upper bounds, seconds: 50 µs to 5 s in 1–2.5–5 steps
  // (from loopback to intercontinental paths).
  static constexpr std::array<double, 16> kRttBuckets = {
      50e-6, 100e-6, 250e-6, 500e-6, 1e-3,   2.5e-3, 5e-3, 10e-3,
      25e-3, 50e-3,  100e-3, 250e-3, 500e-3, 1,      2.5,  5};
  // Up to this many peers, every peer's histogram is exported by default:
  // 19 series each, 1,900 at 100 peers (a sampled Kubernetes mesh stays well below).
  static constexpr std::size_t kDefaultHistogramMaxPeers = 100;

  explicit PeerSeriesTable(std::size_t histogram_max_peers = kDefaultHistogramMaxPeers);
  ~PeerSeriesTable() override;

  // `0`: never export the histogram; a number at least the peer count: always.
  void set_histogram_max_peers(std::size_t peers);

  class Peer;
  // The series of (source, target), made on the first call (with no sample
  // before the first RecordProbe).
  Peer& Add(const std::string& source, const std::string& target);
  // Deletes every series of (source, target) but its declared RTT.
  void Remove(const std::string& source, const std::string& target);

  // One probe's result, `rtt` (nullopt: lost), and the peer's state after it:
  // the smoothed RTT while fresh (nullopt removes the measured RTT) and the
  // loss ratio, all in one step.
  void RecordProbe(Peer& peer, std::optional<absl::Duration> rtt,
                   std::optional<absl::Duration> smoothed, double loss_ratio);
  // The peer's state without a new probe (its RTT went stale).
  void SetState(Peer& peer, std::optional<absl::Duration> smoothed, double loss_ratio);

  // carbonroute_rtt_seconds{method="declared"} from the static matrix; kept until replaced.
  void SetDeclaredRtt(const std::string& source, const std::string& target, absl::Duration rtt);

  std::unique_ptr<ExpositionSnapshot> Snapshot() const override;

  // Every pair's state for the status page (exporter/status_page.h), copied
  // in one locked step: probed peers (smoothed RTT while fresh, loss ratio),
  // then declared RTTs, each by (source, target).
  struct Link {
    std::string source;
    std::string target;
    bool declared = false;
    std::optional<absl::Duration> rtt;  // measured: absent when not fresh
    double loss_ratio = 0;              // measured only
  };
  std::vector<Link> Links() const;

 private:
  class TableSnapshot;

  mutable absl::Mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Peer>> peers_
      ABSL_GUARDED_BY(mutex_);
  std::map<std::pair<std::string, std::string>,
           std::pair<std::shared_ptr<const std::string>, double>>
      declared_ ABSL_GUARDED_BY(mutex_);
  std::atomic<std::size_t> histogram_max_peers_;
};

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_PEER_SERIES_TABLE_H_
