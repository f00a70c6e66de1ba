#include "prober/prober.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/median.h"
#include "spdlog/spdlog.h"

namespace carbonroute::prober {
namespace {

uint64_t SeedOf(const ProberOptions& options) {
  if (options.seed) return *options.seed;
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

uint16_t PortOf(const PeerConfig& peer, const ProbeConfig& config) {
  if (peer.protocol != ProbeProtocol::kTcp) return 0;
  return peer.port != 0 ? peer.port : config.tcp_port;
}

}  // namespace

Prober::Prober(std::string source, const ProbeConfig& config, ProbeTransport& transport,
               Clock& clock, exporter::CollectorMetrics& metrics, ProberOptions options)
    : source_(std::move(source)),
      config_(config),
      stale_after_(config.stale_after > absl::ZeroDuration()
                       ? config.stale_after
                       : 5 * config.interval + config.timeout),
      tick_(Tick(config.interval)),
      transport_(transport),
      clock_(clock),
      metrics_(metrics),
      resolver_(std::move(options.resolver)),
      executor_(std::move(options.executor)),
      observer_(options.observer),
      progress_(options.progress),
      seed_(SeedOf(options)),
      schedule_(config.interval, config.jitter, seed_),
      next_token_(std::mt19937_64(seed_ ^ 0x9e3779b97f4a7c15ULL)()) {}

void Prober::SetTargets(const std::vector<PeerConfig>& peers) {
  {
    absl::MutexLock lock(&mutex_);
    pending_ = peers;
    has_pending_ = true;
  }
  transport_.Wake();
}

void Prober::SetSourceZone(const std::string& zone) {
  {
    absl::MutexLock lock(&mutex_);
    pending_zone_ = zone;
    has_pending_ = true;
  }
  transport_.Wake();
}

void Prober::ExportZoneRtts(absl::Time now) {
  if (now < zone_rtts_at_) return;
  zone_rtts_at_ = now + config_.interval;
  std::map<std::string, std::vector<absl::Duration>> by_zone;
  std::size_t fresh = 0;
  for (const auto& [id, target] : targets_) {
    if (!target->exported_fresh) continue;
    ++fresh;
    if (source_zone_.empty() || target->peer.zone.empty()) continue;
    if (const std::optional<absl::Duration> rtt = target->stats.smoothed()) {
      by_zone[target->peer.zone].push_back(*rtt);
    }
  }
  peer_count_.store(targets_.size(), std::memory_order_relaxed);
  fresh_count_.store(fresh, std::memory_order_relaxed);
  for (auto it = exported_zones_.begin(); it != exported_zones_.end();) {
    if (by_zone.contains(*it)) {
      ++it;
      continue;
    }
    metrics_.SetZoneRtt(source_zone_, *it, std::nullopt);
    it = exported_zones_.erase(it);
  }
  for (auto& [zone, rtts] : by_zone) {
    const absl::Duration median = Median(rtts);
    metrics_.SetZoneRtt(source_zone_, zone, median);
    exported_zones_.insert(zone);
  }
}

void Prober::Stop() {
  stop_ = true;
  transport_.Wake();
}

absl::Duration Prober::Tick(absl::Duration interval) {
  return std::clamp(interval / 50, absl::Milliseconds(1), absl::Milliseconds(20));
}

void Prober::ApplyPendingTargets(absl::Time now) {
  if (!has_pending_.load(std::memory_order_acquire)) return;  // the loop's common case: no lock
  std::optional<std::vector<PeerConfig>> peers;
  std::optional<std::string> zone;
  {
    absl::MutexLock lock(&mutex_);
    peers.swap(pending_);
    zone.swap(pending_zone_);
    has_pending_ = false;
  }
  if (zone && *zone != source_zone_) {
    for (const std::string& target_zone : exported_zones_) {
      metrics_.SetZoneRtt(source_zone_, target_zone, std::nullopt);
    }
    exported_zones_.clear();
    source_zone_ = *zone;
    zone_rtts_at_ = now;
  }
  if (!peers) return;
  std::map<std::string, const PeerConfig*> wanted;
  for (const PeerConfig& peer : *peers) {
    if (!peer.address.empty()) wanted[peer.name] = &peer;
  }
  for (auto it = ids_.begin(); it != ids_.end();) {
    const PeerConfig& current = targets_.at(it->second)->peer;
    auto next = wanted.find(it->first);
    const bool changed = next != wanted.end() && (next->second->address != current.address ||
                                                  next->second->protocol != current.protocol ||
                                                  next->second->port != current.port);
    if (next == wanted.end() || changed) {
      schedule_.Remove(it->second);
      metrics_.RemoveProbeTarget(source_, it->first);
      std::erase(host_names_, it->second);
      targets_.erase(it->second);  // in-flight probes to it are ignored when they answer or expire
      it = ids_.erase(it);
    } else {
      targets_.at(it->second)->peer = *next->second;  // region, zone, location may change
      ++it;
    }
  }
  for (const auto& [name, peer] : wanted) {
    if (ids_.contains(name)) continue;
    const TargetId id = next_id_++;
    ids_.emplace(name, id);
    Target& target =
        *targets_.emplace(id, std::make_unique<Target>(static_cast<std::size_t>(config_.window)))
             .first->second;
    target.peer = *peer;
    target.host_name = !IsIpLiteral(peer->address);
    if (target.host_name) {
      host_names_.push_back(id);
    } else {  // no I/O: resolved here, once
      ApplyResolution(id, resolver_(peer->address, peer->protocol, PortOf(*peer, config_)), now);
    }
    schedule_.Add(id, now);
  }
  spdlog::info("prober: {} peers from {}", targets_.size(), source_);
}

void Prober::ResolveNames(absl::Time now) {
  if (host_names_.empty()) return;  // the common case: every peer is an IP literal
  auto apply_results = [&] {
    if (executor_ == nullptr) return;
    for (const ResolutionExecutor::Result& result : executor_->TakeResults()) {
      ApplyResolution(result.target, result.endpoint, now);
    }
  };
  apply_results();
  bool submitted = false;
  for (const TargetId id : host_names_) {
    Target& target = *targets_.at(id);
    if (target.resolving || now < target.resolve_again_at) continue;
    if (executor_ == nullptr) {
      executor_ = std::make_unique<BackgroundResolver>(resolver_, [this] { transport_.Wake(); });
    }
    target.resolving = true;
    executor_->Submit(
        {id, target.peer.address, target.peer.protocol, PortOf(target.peer, config_)});
    submitted = true;
  }
  if (submitted) apply_results();  // an executor that resolved at once
}

void Prober::ApplyResolution(TargetId id, const absl::StatusOr<ProbeEndpoint>& endpoint,
                             absl::Time now) {
  auto it = targets_.find(id);
  if (it == targets_.end()) return;  // removed while its name was being resolved
  Target& target = *it->second;
  target.resolving = false;
  if (!endpoint.ok()) {
    const std::string error(endpoint.status().message());
    if (error != target.resolve_error) spdlog::warn("prober: peer {}: {}", target.peer.name, error);
    target.resolve_error = error;
    // Back off: interval, 2 × interval, 4 × ... up to resolve_interval. The
    // last address, if any, is still probed meanwhile.
    const int doublings = std::min(target.resolve_failures++, 20);
    target.resolve_again_at =
        now + std::min(config_.interval * (int64_t{1} << doublings), config_.resolve_interval);
    return;
  }
  if (!target.resolve_error.empty()) {
    spdlog::info("prober: peer {} resolves again", target.peer.name);
  }
  target.resolve_error.clear();
  target.resolve_failures = 0;
  target.endpoint = *endpoint;
  target.resolve_again_at =
      target.host_name ? now + config_.resolve_interval : absl::InfiniteFuture();
}

void Prober::Record(TargetId id, Target& target, absl::Time sent_at,
                    std::optional<absl::Duration> rtt, absl::Time now) {
  if (rtt) {
    target.stats.RecordReply(sent_at, *rtt);
  } else {
    target.stats.RecordLoss(sent_at);
  }
  const bool fresh = target.stats.Fresh(now, stale_after_);
  if (rtt && fresh) stale_checks_.emplace_back(StaleAt(target), id);
  target.exported_fresh = fresh;
  if (target.series == nullptr) target.series = &metrics_.ProbeSeriesFor(source_, target.peer.name);
  metrics_.RecordProbe(*target.series, rtt, fresh ? target.stats.smoothed() : std::nullopt,
                       target.stats.loss_ratio().value_or(0));
  if (observer_ != nullptr) {
    observer_->OnProbeResult(ProbeOutcome{target.peer.name, rtt, target.stats, fresh});
  }
}

void Prober::SendDue(absl::Time now) {
  for (const TargetId id : schedule_.Due(now)) {
    auto it = targets_.find(id);
    if (it == targets_.end()) continue;
    Target& target = *it->second;
    if (!target.endpoint) {
      // Its name has not resolved: lost once resolution has failed; before
      // the first answer, not sent at all.
      if (target.resolve_failures > 0) Record(id, target, now, std::nullopt, now);
      continue;
    }
    const uint64_t token = next_token_++;
    absl::StatusOr<absl::Time> sent_at = transport_.Send(*target.endpoint, token);
    if (!sent_at.ok()) {
      spdlog::debug("prober: peer {}: {}", target.peer.name,
                    std::string(sent_at.status().message()));
      Record(id, target, now, std::nullopt, now);
      continue;
    }
    in_flight_[token] = {id, *sent_at};
    expiries_.emplace_back(*sent_at + config_.timeout, token);
  }
}

void Prober::Answer(const ProbeAnswer& answer, absl::Time now) {
  auto it = in_flight_.find(answer.token);
  if (it == in_flight_.end()) return;  // late (already counted as lost), or not ours
  const InFlight probe = it->second;
  in_flight_.erase(it);
  auto target = targets_.find(probe.target);
  if (target == targets_.end()) return;  // the peer was removed meanwhile
  const absl::Duration rtt = answer.kernel_rtt.value_or(answer.received_at - probe.sent_at);
  const bool in_time = answer.answered && rtt >= absl::ZeroDuration() && rtt <= config_.timeout;
  Record(probe.target, *target->second, probe.sent_at, in_time ? std::optional(rtt) : std::nullopt,
         now);
}

absl::Time Prober::StaleAt(const Target& target) const {
  // The first instant at which Fresh() is false: it holds up to and including last + stale_after.
  return target.stats.last_answer_at() + stale_after_ + absl::Nanoseconds(1);
}

void Prober::ExpireStale(absl::Time now) {
  while (!stale_checks_.empty() && stale_checks_.front().first <= now) {
    const auto [deadline, id] = stale_checks_.front();
    stale_checks_.pop_front();
    auto it = targets_.find(id);
    if (it == targets_.end()) continue;
    Target& target = *it->second;
    if (!target.exported_fresh || target.stats.Fresh(now, stale_after_)) continue;
    target.exported_fresh = false;
    metrics_.SetProbeState(*target.series, std::nullopt, target.stats.loss_ratio().value_or(0));
  }
}

void Prober::ExpireTimedOut(absl::Time now) {
  while (!expiries_.empty() && expiries_.front().first <= now) {
    const uint64_t token = expiries_.front().second;
    expiries_.pop_front();
    auto it = in_flight_.find(token);
    if (it == in_flight_.end()) continue;  // answered
    const InFlight probe = it->second;
    in_flight_.erase(it);
    transport_.Cancel(token);
    auto target = targets_.find(probe.target);
    if (target != targets_.end()) {
      Record(probe.target, *target->second, probe.sent_at, std::nullopt, now);
    }
  }
}

absl::Time Prober::NextWake(absl::Time now) {
  // Answered probes leave their expiry behind; drop those at the front so
  // they do not cause a wake of their own.
  while (!expiries_.empty() && !in_flight_.contains(expiries_.front().second)) {
    expiries_.pop_front();
  }
  absl::Time wake = schedule_.NextDue();
  if (!expiries_.empty()) wake = std::min(wake, expiries_.front().first);
  // Likewise the staleness checks of targets that have answered again since.
  while (!stale_checks_.empty()) {
    const auto [deadline, id] = stale_checks_.front();
    auto it = targets_.find(id);
    if (it != targets_.end() && it->second->exported_fresh && StaleAt(*it->second) == deadline) {
      break;
    }
    stale_checks_.pop_front();
  }
  if (!stale_checks_.empty()) wake = std::min(wake, stale_checks_.front().first);
  if (!in_flight_.empty()) wake = std::min(wake, now + tick_);  // collect the replies
  if (!source_zone_.empty() && !targets_.empty()) wake = std::min(wake, zone_rtts_at_);
  if (wake == absl::InfiniteFuture()) return wake;
  // Up to the next tick boundary, so that everything due within a tick shares one wake.
  const int64_t tick_ns = absl::ToInt64Nanoseconds(tick_);
  const int64_t ns = absl::ToUnixNanos(wake);
  return absl::FromUnixNanos((ns / tick_ns + (ns % tick_ns > 0 ? 1 : 0)) * tick_ns);
}

Prober::PeerCounts Prober::peer_counts() const {
  return {peer_count_.load(std::memory_order_relaxed),
          fresh_count_.load(std::memory_order_relaxed)};
}

void Prober::Run() {
  absl::Time now = clock_.Now();
  ProgressMonitor unwatched;  // the loop's promises when nobody watches them
  ProgressMonitor& progress = progress_ != nullptr ? *progress_ : unwatched;
  const ProgressMonitor::LoopId loop_id = progress.Register("prober");
  while (!stop_) {
    progress.Expect(loop_id, now + kTurnSlack);
    // Replies are collected by Wait() at the end of each turn, before the next
    // turn expires probes: a reply that arrived in time is never expired first.
    ApplyPendingTargets(now);
    ResolveNames(now);
    ExpireTimedOut(now);
    ExpireStale(now);
    ExportZoneRtts(now);
    SendDue(now);
    const absl::Time wake = NextWake(now);
    progress.Expect(loop_id, wake + kTurnSlack);
    transport_.Wait(wake, answers_);
    now = clock_.Now();
    for (const ProbeAnswer& answer : answers_) Answer(answer, now);
  }
  progress.Finish(loop_id);
  stop_ = false;  // consumed: Run() may be called again (probes in flight carry over)
}

}  // namespace carbonroute::prober
