#include "extender/shadow_ledger.h"

#include <utility>
#include <vector>

namespace carbonroute::extender {

ShadowLedger::ShadowLedger(ledger::Ledger& ledger, ShadowLedgerOptions options, absl::Time started)
    : ledger_(ledger), options_(std::move(options)), started_(started) {}

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
  auto tracked = tracked_.find(pod.uid);
  if (tracked != tracked_.end()) {
    if (pod.requests) tracked->second.requests = pod.requests;
    if (pod.finished) {
      Book(tracked->second, model, now);
      tracked_.erase(tracked);
    }
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
  const std::string would_at = CandidateLocation(model, {.name = would});
  const std::string runs_at = CandidateLocation(model, {.name = pod.node});
  ledger::LedgerKey decided = key;
  if (const placement::LocationCarbon* carbon = ReadingAt(model, would_at)) {
    decided.emissions_type = carbon->emissions_type;
  }
  ledger_.Decided(decided, would_at == runs_at ? ledger::kOutcomeKept : ledger::kOutcomeMoved);
  tracked_[pod.uid] = {.namespace_name = pod.namespace_name,
                       .would = would,
                       .runs = pod.node,
                       .requests = pod.requests,
                       .last = now};
}

void ShadowLedger::Deleted(const std::string& uid, const placement::PlacementModel* model,
                           absl::Time now) {
  absl::MutexLock lock(&mutex_);
  bound_.erase(uid);
  decided_.erase(uid);
  pending_.erase(uid);
  auto tracked = tracked_.find(uid);
  if (tracked == tracked_.end()) return;
  Book(tracked->second, model, now);
  tracked_.erase(tracked);
}

void ShadowLedger::Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
                          absl::Time now) {
  absl::MutexLock lock(&mutex_);
  std::erase_if(bound_, [&uids](const auto& entry) { return !uids.contains(entry.first); });
  std::erase_if(decided_, [&uids](const std::string& uid) { return !uids.contains(uid); });
  std::erase_if(pending_, [&uids](const auto& entry) { return !uids.contains(entry.first); });
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    if (uids.contains(it->first)) {
      ++it;
      continue;
    }
    Book(it->second, model, now);
    it = tracked_.erase(it);
  }
}

void ShadowLedger::Accrue(const placement::PlacementModel* model, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (model != nullptr && nodes_listed_) {
    // Bound before the Nodes or a model were in: decided now, booked from when they were seen.
    const auto pending = std::move(pending_);
    pending_.clear();
    for (const auto& [uid, seen] : pending) Decide(seen.first, *model, seen.second);
  }
  for (auto& [uid, pod] : tracked_) Book(pod, model, now);
}

void ShadowLedger::Book(Tracked& pod, const placement::PlacementModel* model, absl::Time now) {
  const absl::Duration interval = now - pod.last;
  if (interval <= absl::ZeroDuration()) return;
  pod.last = now;
  std::map<std::string, int> runs_at;
  runs_at[model == nullptr ? "" : CandidateLocation(*model, {.name = pod.runs})] = 1;
  BookPodInterval(ledger_,
                  {.mode = ledger::LedgerMode::kShadow,
                   .longest_interval = options_.longest_interval,
                   .power_model = options_.power_model},
                  {.namespace_name = pod.namespace_name,
                   .chosen_node = pod.would,
                   .counterfactual_locations = std::move(runs_at),
                   .requests = pod.requests},
                  model, interval);
}

std::size_t ShadowLedger::tracked() const {
  absl::MutexLock lock(&mutex_);
  return tracked_.size();
}

}  // namespace carbonroute::extender
