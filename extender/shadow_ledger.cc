#include "extender/shadow_ledger.h"

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

std::string ShadowLedger::Choose(const WatchedPod& pod,
                                 const placement::PlacementModel& model) const {
  std::map<std::string, kube::PodRequests> used;  // per Node, by the other bound Pods
  for (const auto& [uid, bound] : bound_) {
    if (uid == pod.uid) continue;
    kube::PodRequests& on = used[bound.first];
    on.cpu_cores += bound.second.cpu_cores;
    on.memory_bytes += bound.second.memory_bytes;
  }
  const kube::PodRequests requests = pod.requests.value_or(kube::PodRequests{});
  std::vector<placement::Candidate> candidates;
  for (const auto& [name, node] : nodes_) {
    if (WhyNotFits(pod.fit, requests, node, used[name]).empty()) candidates.push_back({name});
  }
  if (candidates.empty()) return "";
  placement::ScoringOptions scoring = options_.scoring;
  const placement::CompactScores scores = placement::ScoreCompact(
      model, candidates, pod.workload, scoring, placement::FailureDetail::kScoresOnly);
  return scores.best ? candidates[*scores.best].name : "";
}

void ShadowLedger::Observed(const WatchedPod& pod, const placement::PlacementModel* model,
                            absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (!pod.node.empty() && !pod.finished) {
    bound_[pod.uid] = {pod.node, pod.requests.value_or(kube::PodRequests{})};
  } else {
    bound_.erase(pod.uid);
  }
  if (tracked_.contains(pod.uid)) {
    if (pod.requests) tracked_.SetRequests(pod.uid, *pod.requests);
    if (pod.finished) tracked_.Finish(pod.uid, model, now);
    return;
  }
  if (pod.node.empty() || pod.finished || decided_.contains(pod.uid)) return;
  if (!options_.namespaces.empty() && !options_.namespaces.contains(pod.namespace_name)) return;
  // Bound before serve started: the cluster it was placed in is not the one seen now.
  if (!pod.scheduled_at || *pod.scheduled_at < started_) return;
  if (model == nullptr || !nodes_listed_) {  // decided once the Nodes and a model are in
    pending_[pod.uid] = {pod, now};
    return;
  }
  Decide(pod, *model, now);
}

void ShadowLedger::Decide(const WatchedPod& pod, const placement::PlacementModel& model,
                          absl::Time now) {
  pending_.erase(pod.uid);
  decided_.insert(pod.uid);
  const ledger::LedgerKey key{.controller = kExtenderController,
                              .namespace_name = pod.namespace_name,
                              .mode = ledger::LedgerMode::kShadow};
  const std::string would = Choose(pod, model);
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
                .chosen_node = would,
                .counterfactual_locations = {{runs_at, 1}},
                .requests = pod.requests},
               now);
}

void ShadowLedger::Deleted(const std::string& uid, const placement::PlacementModel* model,
                           absl::Time now) {
  absl::MutexLock lock(&mutex_);
  bound_.erase(uid);
  decided_.erase(uid);
  pending_.erase(uid);
  tracked_.Finish(uid, model, now);
}

void ShadowLedger::Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
                          absl::Time now) {
  absl::MutexLock lock(&mutex_);
  std::erase_if(bound_, [&uids](const auto& entry) { return !uids.contains(entry.first); });
  std::erase_if(decided_, [&uids](const std::string& uid) { return !uids.contains(uid); });
  std::erase_if(pending_, [&uids](const auto& entry) { return !uids.contains(entry.first); });
  tracked_.Retain(uids, model, now);
}

void ShadowLedger::Accrue(const placement::PlacementModel* model, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (model != nullptr && nodes_listed_) {
    // Bound before the Nodes or a model were in: decided now, booked from when they were seen.
    const auto pending = std::move(pending_);
    pending_.clear();
    for (const auto& [uid, seen] : pending) Decide(seen.first, *model, seen.second);
  }
  tracked_.AccrueAll(model, now);
}

std::size_t ShadowLedger::tracked() const {
  absl::MutexLock lock(&mutex_);
  return tracked_.size();
}

}  // namespace carbonroute::extender
