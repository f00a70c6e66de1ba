#include "exporter/peer_series_table.h"

#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::exporter {
namespace {

namespace label = metric_labels;
constexpr std::size_t kBuckets = PeerSeriesTable::kRttBuckets.size() + 1;  // with +Inf

// `source="a",target="b"`: a peer's labels as they appear on the page.
std::shared_ptr<const std::string> LabelText(const std::string& source, const std::string& target) {
  std::string text = absl::StrCat(label::kSource, "=\"");
  AppendLabelValue(text, source);
  absl::StrAppend(&text, "\",", label::kTarget, "=\"");
  AppendLabelValue(text, target);
  text += '"';
  return std::make_shared<const std::string>(std::move(text));
}

// `,le="0.005"} ` for each bound, then +Inf: formatted once.
const std::array<std::string, kBuckets>& BucketSuffixes() {
  static const auto* suffixes = [] {
    auto* out = new std::array<std::string, kBuckets>();
    for (std::size_t i = 0; i < kBuckets; ++i) {
      std::string bound;
      if (i + 1 < kBuckets) {
        AppendSampleValue(bound, PeerSeriesTable::kRttBuckets[i]);
      } else {
        bound = "+Inf";
      }
      (*out)[i] = absl::StrCat(",le=\"", bound, "\"} ");
    }
    return out;
  }();
  return *suffixes;
}

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class PeerSeriesTable::Peer {
 public:
  explicit Peer(std::shared_ptr<const std::string> label_text) : labels(std::move(label_text)) {}

  const std::shared_ptr<const std::string> labels;
  bool probed = false;  // no series before the first result
  uint64_t sent = 0;
  uint64_t received = 0;
  double loss_ratio = 0;
  double smoothed_seconds = kAbsent;  // NaN: not fresh, no measured RTT
  double rtt_sum_seconds = 0;
  std::array<uint64_t, kBuckets> bucket_counts{};  // per bucket, not cumulative
};

// The values of every probed peer, copied in one locked step.
class PeerSeriesTable::TableSnapshot : public ExpositionSnapshot {
 public:
  struct Row {
    std::shared_ptr<const std::string> labels;
    uint64_t sent, received;
    double loss_ratio, smoothed_seconds, rtt_sum_seconds;
  };
  struct Declared {
    std::shared_ptr<const std::string> labels;
    double seconds;
  };
  std::vector<Row> rows;
  std::vector<Declared> declared;
  bool histograms = false;
  std::vector<std::array<uint64_t, kBuckets>> buckets;  // with histograms, one per row

  bool WriteSome(std::string& out, std::size_t target_bytes) override {
    const std::size_t before = out.size();
    while (out.size() < target_bytes) {
      // The end: false only from a call that appended nothing, as the contract says.
      if (family_ == Family::kEnd) return out.size() != before;
      if (!header_written_) {
        StartFamily(out);
        header_written_ = true;
      }
      if (next_ >= RowsOf(family_)) {
        family_ = static_cast<Family>(static_cast<int>(family_) + 1);
        next_ = 0;
        header_written_ = false;
        continue;
      }
      WriteRow(out, next_++);
    }
    return true;
  }

 private:
  // carbonroute_rtt_seconds first walks the declared rows, then the measured ones.
  enum class Family { kRtt, kLoss, kSent, kReceived, kHistogram, kEnd };

  std::size_t RowsOf(Family family) const {
    switch (family) {
      case Family::kRtt:
        return declared.size() + rows.size();
      case Family::kHistogram:
        return histograms ? rows.size() : 0;
      case Family::kEnd:
        return 0;
      default:
        return rows.size();
    }
  }

  void StartFamily(std::string& out) const {
    if (RowsOf(family_) == 0) return;
    switch (family_) {
      case Family::kRtt:
        AppendFamilyHeader(out, metric_names::kRtt,
                           "Round-trip time from this node to a peer, seconds (method: measured "
                           "or declared).",
                           "gauge");
        break;
      case Family::kLoss:
        AppendFamilyHeader(out, metric_names::kProbeLossRatio,
                           "Probes to a peer lost (no reply within the timeout) over the recent "
                           "window, 0-1.",
                           "gauge");
        break;
      case Family::kSent:
        AppendFamilyHeader(out, metric_names::kProbesSent, "Probes sent from this node to a peer.",
                           "counter");
        break;
      case Family::kReceived:
        AppendFamilyHeader(out, metric_names::kProbesReceived,
                           "Probes from this node to a peer answered within the timeout.",
                           "counter");
        break;
      case Family::kHistogram:
        AppendFamilyHeader(
            out, metric_names::kProbeRtt,
            "Round-trip time of every answered probe from this node to a peer, seconds.",
            "histogram");
        break;
      case Family::kEnd:
        break;
    }
  }

  // `name{<first_labels><labels>} value`: labels in name order, as prometheus-cpp writes them.
  static void Sample(std::string& out, absl::string_view name, absl::string_view first_labels,
                     const std::string& labels, double value) {
    absl::StrAppend(&out, name, "{", first_labels, labels, "} ");
    AppendSampleValue(out, value);
    out += '\n';
  }

  static void Count(std::string& out, absl::string_view name, const std::string& labels,
                    uint64_t count) {
    absl::StrAppend(&out, name, "{", labels, "} ", count, "\n");
  }

  void WriteRow(std::string& out, std::size_t i) const {
    static const std::string measured =
        absl::StrCat(label::kMethod, "=\"", RttMethodName(RttMethod::kMeasured), "\",");
    static const std::string declared_method =
        absl::StrCat(label::kMethod, "=\"", RttMethodName(RttMethod::kDeclared), "\",");
    switch (family_) {
      case Family::kRtt:
        if (i < declared.size()) {
          Sample(out, metric_names::kRtt, declared_method, *declared[i].labels,
                 declared[i].seconds);
        } else if (const Row& row = rows[i - declared.size()]; !std::isnan(row.smoothed_seconds)) {
          Sample(out, metric_names::kRtt, measured, *row.labels, row.smoothed_seconds);
        }
        break;
      case Family::kLoss:
        Sample(out, metric_names::kProbeLossRatio, "", *rows[i].labels, rows[i].loss_ratio);
        break;
      case Family::kSent:
        Count(out, metric_names::kProbesSent, *rows[i].labels, rows[i].sent);
        break;
      case Family::kReceived:
        Count(out, metric_names::kProbesReceived, *rows[i].labels, rows[i].received);
        break;
      case Family::kHistogram:
        WriteHistogram(out, i);
        break;
      case Family::kEnd:
        break;
    }
  }

  void WriteHistogram(std::string& out, std::size_t i) const {
    static const std::string bucket_name = absl::StrCat(metric_names::kProbeRtt, "_bucket{");
    const std::string& labels = *rows[i].labels;
    uint64_t cumulative = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      cumulative += buckets[i][b];
      absl::StrAppend(&out, bucket_name, labels, BucketSuffixes()[b], cumulative, "\n");
    }
    absl::StrAppend(&out, metric_names::kProbeRtt, "_sum{", labels, "} ");
    AppendSampleValue(out, rows[i].rtt_sum_seconds);
    absl::StrAppend(&out, "\n", metric_names::kProbeRtt, "_count{", labels, "} ", cumulative, "\n");
  }

  Family family_ = Family::kRtt;
  std::size_t next_ = 0;         // the next row of family_
  bool header_written_ = false;  // family_'s HELP and TYPE
};

PeerSeriesTable::PeerSeriesTable(std::size_t histogram_max_peers)
    : histogram_max_peers_(histogram_max_peers) {}

PeerSeriesTable::~PeerSeriesTable() = default;

void PeerSeriesTable::set_histogram_max_peers(std::size_t peers) {
  histogram_max_peers_.store(peers, std::memory_order_relaxed);
}

PeerSeriesTable::Peer& PeerSeriesTable::Add(const std::string& source, const std::string& target) {
  absl::MutexLock lock(&mutex_);
  std::unique_ptr<Peer>& peer = peers_[{source, target}];
  if (peer == nullptr) peer = std::make_unique<Peer>(LabelText(source, target));
  return *peer;
}

void PeerSeriesTable::Remove(const std::string& source, const std::string& target) {
  absl::MutexLock lock(&mutex_);
  peers_.erase({source, target});
}

void PeerSeriesTable::RecordProbe(Peer& peer, std::optional<absl::Duration> rtt,
                                  std::optional<absl::Duration> smoothed, double loss_ratio) {
  absl::MutexLock lock(&mutex_);
  peer.probed = true;
  ++peer.sent;
  if (rtt) {
    ++peer.received;
    const double seconds = absl::ToDoubleSeconds(*rtt);
    peer.rtt_sum_seconds += seconds;
    std::size_t b = 0;  // the first bucket whose upper bound holds it (le: ≤), else +Inf
    while (b < kRttBuckets.size() && seconds > kRttBuckets[b]) ++b;
    ++peer.bucket_counts[b];
  }
  peer.loss_ratio = loss_ratio;
  peer.smoothed_seconds = smoothed ? absl::ToDoubleSeconds(*smoothed) : kAbsent;
}

void PeerSeriesTable::SetState(Peer& peer, std::optional<absl::Duration> smoothed,
                               double loss_ratio) {
  absl::MutexLock lock(&mutex_);
  peer.loss_ratio = loss_ratio;
  peer.smoothed_seconds = smoothed ? absl::ToDoubleSeconds(*smoothed) : kAbsent;
}

void PeerSeriesTable::SetDeclaredRtt(const std::string& source, const std::string& target,
                                     absl::Duration rtt) {
  std::shared_ptr<const std::string> labels = LabelText(source, target);
  absl::MutexLock lock(&mutex_);
  declared_[{source, target}] = {std::move(labels), absl::ToDoubleSeconds(rtt)};
}

std::vector<PeerSeriesTable::Link> PeerSeriesTable::Links() const {
  std::vector<Link> links;
  absl::MutexLock lock(&mutex_);
  links.reserve(peers_.size() + declared_.size());
  for (const auto& [pair, peer] : peers_) {
    if (!peer->probed) continue;
    Link& link = links.emplace_back(Link{pair.first, pair.second, false, std::nullopt, 0});
    if (!std::isnan(peer->smoothed_seconds)) link.rtt = absl::Seconds(peer->smoothed_seconds);
    link.loss_ratio = peer->loss_ratio;
  }
  for (const auto& [pair, declared] : declared_) {
    links.push_back({pair.first, pair.second, true, absl::Seconds(declared.second), 0});
  }
  return links;
}

std::unique_ptr<ExpositionSnapshot> PeerSeriesTable::Snapshot() const {
  auto snapshot = std::make_unique<TableSnapshot>();
  absl::MutexLock lock(&mutex_);
  snapshot->histograms = peers_.size() <= histogram_max_peers_.load(std::memory_order_relaxed);
  snapshot->rows.reserve(peers_.size());
  if (snapshot->histograms) snapshot->buckets.reserve(peers_.size());
  for (const auto& [key, peer] : peers_) {
    if (!peer->probed) continue;
    snapshot->rows.push_back({peer->labels, peer->sent, peer->received, peer->loss_ratio,
                              peer->smoothed_seconds, peer->rtt_sum_seconds});
    if (snapshot->histograms) snapshot->buckets.push_back(peer->bucket_counts);
  }
  snapshot->declared.reserve(declared_.size());
  for (const auto& [key, value] : declared_)
    snapshot->declared.push_back({value.first, value.second});
  return snapshot;
}

}  // namespace carbonroute::exporter
