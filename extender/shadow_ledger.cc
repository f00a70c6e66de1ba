#include "extender/shadow_ledger.h"

#include <cmath>
#include <utility>
#include <vector>

namespace carbonroute::extender {

ShadowLedger::ShadowLedger(ledger::Ledger& ledger, ShadowLedgerOptions options, absl::Time started)
    : ledger_(ledger),
      options_(std::move(options)),
      started_(started),
      tracked_(ledger, {.mode = ledger::LedgerMode::kShadow,
                        .longest_interval = options_.longest_interval,
                        .power_model = options_.power_model}) {}

void ShadowLedger::NodesListed(std::map<std::string, FitNode> nodes) {
  absl::MutexLock lock(&mutex_);
  nodes_ = std::move(nodes);
  nodes_listed_ = true;
}

void ShadowLedger::NodeChanged(FitNode node) {
  absl::MutexLock lock(&mutex_);
  const std::string name = node.name;
  nodes_[name] = std::move(node);
}

void ShadowLedger::NodeDeleted(const std::string& name) {
  absl::MutexLock lock(&mutex_);
  nodes_.erase(name);
}

ShadowLedger::NodeUse ShadowLedger::UseOf(const kube::PodRequests& requests) {
  return {.millicores = static_cast<int64_t>(std::ceil(requests.cpu_cores * 1000)),
          .bytes = static_cast<int64_t>(std::ceil(requests.memory_bytes))};
}

void ShadowLedger::Bind(const std::string& uid, const std::string& node,
                        const kube::PodRequests& requests) {
  Unbind(uid);
  const NodeUse use = UseOf(requests);
  bound_[uid] = {node, use};
  NodeUse& on = used_[node];
  on.millicores += use.millicores;
  on.bytes += use.bytes;
}

void ShadowLedger::Unbind(const std::string& uid) {
  const auto bound = bound_.find(uid);
  if (bound == bound_.end()) return;
  const auto& [node, use] = bound->second;
  const auto on = used_.find(node);
  on->second.millicores -= use.millicores;
  on->second.bytes -= use.bytes;
  if (on->second.millicores == 0 && on->second.bytes == 0) used_.erase(on);
  bound_.erase(bound);
}

std::string ShadowLedger::Choose(const WatchedPod& pod, const placement::PlacementModel& model,
                                 absl::Time now) const {
  const auto self = bound_.find(pod.uid);  // the Pod's own requests do not count against it
  const kube::PodRequests requests = pod.requests.value_or(kube::PodRequests{});
  std::vector<placement::Candidate> candidates;
  for (const auto& [name, node] : nodes_) {
    NodeUse use;
    if (const auto on = used_.find(name); on != used_.end()) use = on->second;
    if (self != bound_.end() && self->second.first == name) {
      use.millicores -= self->second.second.millicores;
      use.bytes -= self->second.second.bytes;
    }
    const kube::PodRequests used{.cpu_cores = static_cast<double>(use.millicores) / 1000,
                                 .memory_bytes = static_cast<double>(use.bytes)};
    if (WhyNotFits(pod.fit, requests, node, used).empty()) candidates.push_back({name});
  }
  if (candidates.empty()) return "";
  placement::ScoringOptions scoring = options_.scoring;
  scoring.now = now;  // stale readings count as none, as the extender scores
  const placement::CompactScores scores = placement::ScoreCompact(
      model, candidates, pod.workload, scoring, placement::FailureDetail::kScoresOnly);
  return scores.best ? candidates[*scores.best].name : "";
}

void ShadowLedger::Observed(const WatchedPod& pod, const placement::PlacementModel* model,
                            absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (!pod.node.empty() && !pod.finished) {
    Bind(pod.uid, pod.node, pod.requests.value_or(kube::PodRequests{}));
  } else {
    Unbind(pod.uid);
  }
  if (tracked_.contains(pod.uid)) {
    if (pod.requests) tracked_.SetRequests(pod.uid, *pod.requests);
    if (pod.finished) tracked_.Finish(pod.uid, model, now);
    return;
  }
  if (pod.node.empty() || pod.finished || decided_.contains(pod.uid)) return;
  if (!options_.namespaces.empty() && !options_.namespaces.contains(pod.namespace_name)) return;
  // Bound before serve started: the cluster it was placed in is not the one seen now.
  if (!pod.scheduled_at || pod.ScheduledBefore(started_)) return;
  if (model == nullptr || !nodes_listed_) {  // decided once the Nodes and a model are in
    pending_[pod.uid] = {pod, now};
    return;
  }
  Decide(pod, *model, now, now);
}

void ShadowLedger::Decide(const WatchedPod& pod, const placement::PlacementModel& model,
                          absl::Time seen, absl::Time now) {
  pending_.erase(pod.uid);
  decided_.insert(pod.uid);
  const ledger::LedgerKey key{.controller = kExtenderController,
                              .namespace_name = pod.namespace_name,
                              .mode = ledger::LedgerMode::kShadow};
  const std::string would = Choose(pod, model, now);
  if (would.empty()) {
    ledger_.Decided(key, ledger::kNoFit);
    return;
  }
  const std::string would_at = placement::ResolvedLocation(model, {.name = would});
  const std::string runs_at = placement::ResolvedLocation(model, {.name = pod.node});
  ledger::LedgerKey decided = key;
  if (const placement::LocationCarbon* carbon = ReadingAt(model, would_at)) {
    decided.emissions_type = carbon->emissions_type;
  }
  ledger_.Decided(decided, would_at == runs_at ? ledger::kOutcomeKept : ledger::kOutcomeMoved);
  tracked_.Add(pod.uid,
               {.namespace_name = pod.namespace_name,
                .name = pod.name,
                .runs_on = pod.node,
                .chosen_node = would,
                .counterfactual_locations = {{runs_at, 1}},
                .requests = pod.requests},
               seen);
}

void ShadowLedger::Deleted(const std::string& uid, const placement::PlacementModel* model,
                           absl::Time now) {
  absl::MutexLock lock(&mutex_);
  Unbind(uid);
  decided_.erase(uid);
  pending_.erase(uid);
  tracked_.Finish(uid, model, now);
}

void ShadowLedger::Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
                          absl::Time now) {
  absl::MutexLock lock(&mutex_);
  std::vector<std::string> gone;
  for (const auto& [uid, bound] : bound_) {
    if (!uids.contains(uid)) gone.push_back(uid);
  }
  for (const std::string& uid : gone) Unbind(uid);
  std::erase_if(decided_, [&uids](const std::string& uid) { return !uids.contains(uid); });
  std::erase_if(pending_, [&uids](const auto& entry) { return !uids.contains(entry.first); });
  tracked_.Retain(uids, model, now);
}

void ShadowLedger::Accrue(const placement::PlacementModel* model, absl::Time now,
                          const ledger::MeteredPods* metered) {
  absl::MutexLock lock(&mutex_);
  if (model != nullptr && nodes_listed_) {
    // Bound before the Nodes or a model were in: decided now, booked from when they were seen.
    const auto pending = std::move(pending_);
    pending_.clear();
    for (const auto& [uid, seen] : pending) Decide(seen.first, *model, seen.second, now);
  }
  tracked_.AccrueAll(model, now, metered);
}

std::size_t ShadowLedger::tracked() const {
  absl::MutexLock lock(&mutex_);
  return tracked_.size();
}

}  // namespace carbonroute::extender
