#include "collector/prober.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace carbonroute::collector {
namespace {

uint16_t PortOf(const PeerConfig& peer, const ProbeConfig& config) {
  if (peer.protocol != ProbeProtocol::kTcp) return 0;
  return peer.port != 0 ? peer.port : config.tcp_port;
}

bool IsNumeric(const std::string& host) {
  in6_addr scratch;
  return inet_pton(AF_INET, host.c_str(), &scratch) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &scratch) == 1;
}

}  // namespace

absl::StatusOr<ProbeEndpoint> ResolveWithGetaddrinfo(const std::string& host,
                                                     ProbeProtocol protocol, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;  // one entry per address
  hints.ai_flags = AI_ADDRCONFIG | (IsNumeric(host) ? AI_NUMERICHOST : 0);
  addrinfo* results = nullptr;
  const int error = getaddrinfo(host.c_str(), nullptr, &hints, &results);
  if (error != 0 || results == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot resolve \"", host, "\": ", gai_strerror(error)));
  }
  ProbeEndpoint endpoint;
  endpoint.protocol = protocol;
  std::memcpy(&endpoint.address, results->ai_addr, results->ai_addrlen);
  endpoint.length = results->ai_addrlen;
  freeaddrinfo(results);
  if (endpoint.family() == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&endpoint.address)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&endpoint.address)->sin6_port = htons(port);
  }
  return endpoint;
}

Prober::Prober(std::string source, const ProbeConfig& config, ProbeTransport& transport,
               Clock& clock, exporter::CollectorMetrics& metrics, Resolver resolver, uint64_t seed)
    : source_(std::move(source)),
      config_(config),
      stale_after_(config.stale_after > absl::ZeroDuration()
                       ? config.stale_after
                       : 5 * config.interval + config.timeout),
      transport_(transport),
      clock_(clock),
      metrics_(metrics),
      resolver_(std::move(resolver)),
      schedule_(config.interval, config.jitter, seed),
      next_token_(std::mt19937_64(seed ^ 0x9e3779b97f4a7c15ULL)()) {}

void Prober::SetTargets(const std::vector<PeerConfig>& peers) {
  {
    absl::MutexLock lock(&mutex_);
    pending_ = peers;
    has_pending_ = true;
  }
  transport_.Wake();
}

void Prober::Stop() {
  stop_ = true;
  transport_.Wake();
}

void Prober::ApplyPendingTargets(absl::Time now) {
  if (!has_pending_.load(std::memory_order_acquire)) return;  // the loop's common case: no lock
  std::optional<std::vector<PeerConfig>> peers;
  {
    absl::MutexLock lock(&mutex_);
    peers.swap(pending_);
    has_pending_ = false;
  }
  if (!peers) return;
  std::map<std::string, const PeerConfig*> wanted;
  for (const PeerConfig& peer : *peers) {
    if (!peer.address.empty()) wanted[peer.name] = &peer;
  }
  for (auto it = targets_.begin(); it != targets_.end();) {
    auto next = wanted.find(it->first);
    const bool changed =
        next != wanted.end() && (next->second->address != it->second.peer.address ||
                                 next->second->protocol != it->second.peer.protocol ||
                                 next->second->port != it->second.peer.port);
    if (next == wanted.end() || changed) {
      schedule_.Remove(it->first);
      metrics_.RemoveProbeTarget(source_, it->first);
      it = targets_.erase(it);  // in-flight probes to it are ignored when they answer or expire
    } else {
      ++it;
    }
  }
  for (const auto& [name, peer] : wanted) {
    if (targets_.contains(name)) continue;
    Target& target =
        targets_.emplace(name, Target(static_cast<std::size_t>(config_.window))).first->second;
    target.peer = *peer;
    schedule_.Add(name, now);
  }
  spdlog::info("prober: {} peers from {}", targets_.size(), source_);
}

bool Prober::Resolve(Target& target, absl::Time now) {
  if (target.endpoint && now < target.resolve_again_at) return true;
  absl::StatusOr<ProbeEndpoint> endpoint =
      resolver_(target.peer.address, target.peer.protocol, PortOf(target.peer, config_));
  if (!endpoint.ok()) {
    const std::string error(endpoint.status().message());
    if (error != target.resolve_error) spdlog::warn("prober: peer {}: {}", target.peer.name, error);
    target.resolve_error = error;
    if (target.endpoint) return true;  // keep probing the last known address
    return false;
  }
  if (!target.resolve_error.empty())
    spdlog::info("prober: peer {} resolves again", target.peer.name);
  target.resolve_error.clear();
  target.endpoint = *endpoint;
  // An IP literal never changes: it is "resolved" once.
  target.resolve_again_at =
      IsNumeric(target.peer.address) ? absl::InfiniteFuture() : now + config_.resolve_interval;
  return true;
}

void Prober::Record(Target& target, const std::string& name, absl::Time sent_at,
                    std::optional<absl::Duration> rtt) {
  if (rtt) {
    target.stats.RecordReply(sent_at, *rtt);
  } else {
    target.stats.RecordLoss(sent_at);
  }
  const bool fresh = target.stats.Fresh(clock_.Now(), stale_after_);
  if (target.series == nullptr) target.series = &metrics_.ProbeSeriesFor(source_, name);
  metrics_.ObserveProbe(*target.series, rtt);
  metrics_.SetProbeState(*target.series, fresh ? target.stats.smoothed() : std::nullopt,
                         target.stats.loss_ratio().value_or(0));
  if (listener_) listener_(ProbeOutcome{name, rtt, target.stats, fresh});
}

void Prober::SendDue(absl::Time now) {
  for (const std::string& name : schedule_.Due(now)) {
    auto it = targets_.find(name);
    if (it == targets_.end()) continue;
    Target& target = it->second;
    if (!Resolve(target, now)) {
      Record(target, name, now, std::nullopt);
      continue;
    }
    const uint64_t token = next_token_++;
    absl::StatusOr<absl::Time> sent_at = transport_.Send(*target.endpoint, token);
    if (!sent_at.ok()) {
      spdlog::debug("prober: peer {}: {}", name, std::string(sent_at.status().message()));
      Record(target, name, now, std::nullopt);
      continue;
    }
    in_flight_[token] = {name, *sent_at};
    expiries_.emplace_back(*sent_at + config_.timeout, token);
  }
}

void Prober::Answer(const ProbeAnswer& answer) {
  auto it = in_flight_.find(answer.token);
  if (it == in_flight_.end()) return;  // late (already counted as lost), or not ours
  const InFlight probe = std::move(it->second);
  in_flight_.erase(it);
  auto target = targets_.find(probe.target);
  if (target == targets_.end()) return;  // the peer was removed meanwhile
  const absl::Duration rtt = answer.received_at - probe.sent_at;
  const bool in_time = answer.answered && rtt >= absl::ZeroDuration() && rtt <= config_.timeout;
  Record(target->second, probe.target, probe.sent_at, in_time ? std::optional(rtt) : std::nullopt);
}

void Prober::ExpireTimedOut(absl::Time now) {
  while (!expiries_.empty() && expiries_.front().first <= now) {
    const uint64_t token = expiries_.front().second;
    expiries_.pop_front();
    auto it = in_flight_.find(token);
    if (it == in_flight_.end()) continue;  // answered
    const InFlight probe = std::move(it->second);
    in_flight_.erase(it);
    transport_.Cancel(token);
    auto target = targets_.find(probe.target);
    if (target != targets_.end()) Record(target->second, probe.target, probe.sent_at, std::nullopt);
  }
}

void Prober::Run() {
  while (!stop_) {
    absl::Time now = clock_.Now();
    ApplyPendingTargets(now);
    ExpireTimedOut(now);
    SendDue(now);
    absl::Time deadline = schedule_.NextDue();
    if (!expiries_.empty()) deadline = std::min(deadline, expiries_.front().first);
    for (const ProbeAnswer& answer : transport_.Wait(deadline)) Answer(answer);
  }
  stop_ = false;  // consumed: Run() may be called again (probes in flight carry over)
}

}  // namespace carbonroute::collector
