#include "extender/pod_ledger.h"

#include <algorithm>
#include <utility>

namespace carbonroute::extender {
const placement::LocationCarbon* ReadingAt(const placement::PlacementModel& model,
                                           const std::string& location) {
  if (location.empty()) return nullptr;
  const uint32_t id = model.LocationId(location);
  return id == placement::PlacementModel::kNone ? nullptr : model.Carbon(id);
}

PodLedger::PodLedger(ledger::Ledger& ledger, PodLedgerOptions options, absl::Time started)
    : ledger_(ledger),
      options_(options),
      started_(started),
      tracked_(ledger, {.mode = ledger::LedgerMode::kEnforced,
                        .longest_interval = options.longest_interval,
                        .power_model = options.power_model}) {}

void TrackedPods::Add(const std::string& uid, const PodInterval& pod, absl::Time now) {
  Tracked tracked{.namespace_name = pod.namespace_name,
                  .name = pod.name,
                  .chosen_node = pod.chosen_node,
                  .runs_on = &*names_.insert(pod.runs_on).first,
                  .requests = pod.requests,
                  .last = now};
  tracked.counterfactual.reserve(pod.counterfactual_locations.size());
  for (const auto& [location, count] : pod.counterfactual_locations) {
    tracked.counterfactual.emplace_back(&*names_.insert(location).first, count);
  }
  pods_[uid] = std::move(tracked);
}

void TrackedPods::SetRequests(const std::string& uid, const kube::PodRequests& requests) {
  if (auto it = pods_.find(uid); it != pods_.end()) it->second.requests = requests;
}

void TrackedPods::Finish(const std::string& uid, const placement::PlacementModel* model,
                         absl::Time now) {
  auto it = pods_.find(uid);
  if (it == pods_.end() || it->second.finished_at) return;
  if (it->second.metered_at) {  // its last minutes are in windows still to be read
    it->second.finished_at = now;
    return;
  }
  Book(it->second, model, now, nullptr);
  pods_.erase(it);
}

void TrackedPods::Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
                         absl::Time now) {
  for (auto it = pods_.begin(); it != pods_.end();) {
    if (uids.contains(it->first) || it->second.finished_at) {
      ++it;
      continue;
    }
    if (it->second.metered_at) {
      it->second.finished_at = now;
      ++it;
      continue;
    }
    Book(it->second, model, now, nullptr);
    it = pods_.erase(it);
  }
}

const std::vector<ledger::PodEnergy>* TrackedPods::MeasuredFor(const Tracked& pod,
                                                               const ledger::MeteredPods* metered) {
  if (metered == nullptr) return nullptr;
  const auto it = metered->pods.find({pod.namespace_name, pod.name});
  return it == metered->pods.end() ? nullptr : &it->second;
}

void TrackedPods::AccrueAll(const placement::PlacementModel* model, absl::Time now,
                            const ledger::MeteredPods* metered) {
  if (metered != nullptr) {
    for (const std::string& node : metered->nodes) metered_nodes_[node] = now;
  }
  std::erase_if(metered_nodes_,
                [&](const auto& entry) { return now - entry.second > rules_.longest_interval; });
  for (auto it = pods_.begin(); it != pods_.end();) {
    Tracked& pod = it->second;
    const std::vector<ledger::PodEnergy>* measured = MeasuredFor(pod, metered);
    if (pod.finished_at) {  // ended: only what a window still holds of it
      if (measured != nullptr) Book(pod, model, now, measured);
      if (measured != nullptr || now - *pod.finished_at > rules_.longest_interval) {
        it = pods_.erase(it);
        continue;
      }
    } else {
      Book(pod, model, now, measured);
    }
    ++it;
  }
}

void TrackedPods::Book(Tracked& pod, const placement::PlacementModel* model, absl::Time now,
                       const std::vector<ledger::PodEnergy>* measured) {
  const absl::Duration interval = now - pod.last;
  // A measured window is booked whatever the interval (windows never repeat).
  if (interval <= absl::ZeroDuration() && measured == nullptr) return;
  pod.last = std::max(pod.last, now);
  // The chosen Node's reading and the counterfactual's mean, each with its emissions type.
  const placement::LocationCarbon* chosen =
      model == nullptr
          ? nullptr
          : ReadingAt(*model, placement::ResolvedLocation(*model, {.name = pod.chosen_node}));
  const EmissionsType type = chosen != nullptr ? chosen->emissions_type : EmissionsType::kAverage;
  auto skip = [&](absl::string_view reason) { ledger_.Skipped(kExtenderController, type, reason); };
  if (measured == nullptr && !pod.metered_at && !pod.meter_gave_up &&
      metered_nodes_.contains(*pod.runs_on)) {
    pod.metered_at = now - interval;  // on a metered Node: its minutes are to come
  }
  if (measured == nullptr && pod.metered_at) {
    // Measured before: its minutes come in a later window, unless the meter
    // has been silent on it for longer than a window may be.
    if (now - *pod.metered_at <= rules_.longest_interval) return;
    pod.metered_at.reset();  // the model again, from now on
    pod.meter_gave_up = true;
    return skip(ledger::kUnknownEnergy);
  }
  if (measured != nullptr) pod.metered_at = now;
  // What it drew: measured, else its requests through the power model.
  std::vector<ledger::PodEnergy> modelled;
  if (measured == nullptr) {
    if (interval > rules_.longest_interval) return skip(ledger::kGap);
    if (!pod.requests) return skip(ledger::kUnknownEnergy);
    modelled.push_back(
        {rules_.power_model.Joules(*pod.requests, 1, interval), ledger::EnergySource::kModel});
    measured = &modelled;
  }
  if (chosen == nullptr) return skip(ledger::kUnknownIntensity);
  double sum = 0;
  int nodes = 0;
  for (const auto& [location, count] : pod.counterfactual) {
    const placement::LocationCarbon* reading = ReadingAt(*model, *location);
    if (reading == nullptr) return skip(ledger::kUnknownIntensity);
    if (reading->emissions_type != type) return skip(ledger::kMixedEmissionsTypes);
    sum += count * reading->grams_per_kwh;
    nodes += count;
  }
  if (nodes == 0) return skip(ledger::kUnknownIntensity);
  for (const ledger::PodEnergy& energy : *measured) {
    const absl::Status booked = ledger_.Accrue({.controller = kExtenderController,
                                                .namespace_name = pod.namespace_name,
                                                .mode = rules_.mode,
                                                .emissions_type = type},
                                               {.energy_joules = energy.joules,
                                                .energy_source = energy.source,
                                                .chosen_grams_per_kwh = chosen->grams_per_kwh,
                                                .counterfactual_grams_per_kwh = sum / nodes});
    if (!booked.ok()) skip(ledger::kUnknownIntensity);
  }
}

void PodLedger::Expire(absl::Time now) {
  while (!scored_order_.empty() && (scored_order_.size() > options_.max_scored ||
                                    now - scored_order_.front().first > options_.scored_ttl)) {
    const auto& [at, uid] = scored_order_.front();
    const auto it = scored_.find(uid);
    if (it != scored_.end() && it->second.second == at) scored_.erase(it);
    scored_order_.pop_front();
  }
}

void PodLedger::Scored(ScoredPod pod, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (pod.uid.empty()) return;
  schedulers_.insert(pod.scheduler_name);
  auto it = scored_.find(pod.uid);
  if (it != scored_.end() && it->second.first.from_filter && !pod.from_filter) return;
  const std::string uid = pod.uid;
  scored_[uid] = {std::move(pod), now};
  scored_order_.emplace_back(now, uid);
  Expire(now);
}

void PodLedger::Observed(const WatchedPod& pod, const placement::PlacementModel* model,
                         absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (tracked_.contains(pod.uid)) {
    if (pod.requests) tracked_.SetRequests(pod.uid, *pod.requests);
    if (pod.finished) tracked_.Finish(pod.uid, model, now);
    return;
  }
  if (pod.node.empty() || pod.finished) return;
  const auto scored = scored_.find(pod.uid);
  if (scored == scored_.end()) {
    // Bound without carbonroute's score (once per Pod, for the schedulers it scores for).
    if (!schedulers_.contains(pod.scheduler_name) || !decided_.insert(pod.uid).second) return;
    const bool before = pod.ScheduledBefore(started_);
    ledger_.Decided({.controller = kExtenderController, .namespace_name = pod.namespace_name},
                    before ? ledger::kRestart : ledger::kNotScored);
    return;
  }
  PodInterval entry{.namespace_name = pod.namespace_name,
                    .name = pod.name,
                    .runs_on = pod.node,
                    .chosen_node = pod.node,
                    .counterfactual_locations = std::move(scored->second.first.candidate_locations),
                    .requests = pod.requests};
  scored_.erase(scored);
  // The decision's emissions type: the bound location's reading's, when there is one.
  EmissionsType type = EmissionsType::kAverage;
  if (model != nullptr) {
    if (const placement::LocationCarbon* carbon =
            ReadingAt(*model, placement::ResolvedLocation(*model, {.name = entry.chosen_node}))) {
      type = carbon->emissions_type;
    }
  }
  ledger_.Decided(
      {.controller = kExtenderController,
       .namespace_name = pod.namespace_name,
       .emissions_type = type},
      entry.counterfactual_locations.size() > 1 ? ledger::kOutcomeMoved : ledger::kOutcomeKept);
  tracked_.Add(pod.uid, entry, now);
}

void PodLedger::Deleted(const std::string& uid, const placement::PlacementModel* model,
                        absl::Time now) {
  absl::MutexLock lock(&mutex_);
  decided_.erase(uid);
  scored_.erase(uid);
  tracked_.Finish(uid, model, now);
}

void PodLedger::Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
                       absl::Time now) {
  absl::MutexLock lock(&mutex_);
  tracked_.Retain(uids, model, now);
  std::erase_if(decided_, [&uids](const std::string& uid) { return !uids.contains(uid); });
}

void PodLedger::Accrue(const placement::PlacementModel* model, absl::Time now,
                       const ledger::MeteredPods* metered) {
  absl::MutexLock lock(&mutex_);
  tracked_.AccrueAll(model, now, metered);
  Expire(now);
}

std::size_t PodLedger::tracked() const {
  absl::MutexLock lock(&mutex_);
  return tracked_.size();
}

bool PodLedger::ScoredByFilter(const std::string& uid) const {
  absl::MutexLock lock(&mutex_);
  const auto it = scored_.find(uid);
  return it != scored_.end() && it->second.first.from_filter;
}

std::size_t PodLedger::scored() const {
  absl::MutexLock lock(&mutex_);
  return scored_.size();
}

}  // namespace carbonroute::extender
