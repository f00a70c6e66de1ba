#include "rebalance/move_plan.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "placement/scoring.h"

namespace carbonroute::rebalance {
namespace {

placement::GridView GridOf(const placement::PlacementModel& model, const std::string& location,
                           double now_grams) {
  placement::GridView grid{.grams_per_kwh = now_grams};
  const uint32_t id = model.LocationId(location);
  if (id == placement::PlacementModel::kNone) return grid;
  if (const placement::LocationCarbon* carbon = model.Carbon(id)) {
    grid.forecast_mean = carbon->forecast_mean;
  }
  return grid;
}

}  // namespace

PodPlan PlanPod(const extender::WatchedPod& pod, const NodeSet& nodes,
                const placement::PlacementModel& model, absl::Time now) {
  PodPlan plan;
  const kube::PodRequests requests = pod.requests.value_or(kube::PodRequests{});
  std::vector<placement::Candidate> candidates;
  std::vector<std::string> misfits;
  for (const auto& [name, fit] : nodes.fit) {
    const auto place = nodes.places.find(name);
    placement::Candidate candidate{.name = name};
    if (place != nodes.places.end()) {
      candidate.location = place->second.location;
      candidate.region = place->second.region;
    }
    if (name != pod.node) {
      const auto used = nodes.used.find(name);
      const std::string why = extender::WhyNotFits(
          pod.fit, requests, fit, used == nodes.used.end() ? kube::PodRequests{} : used->second);
      if (!why.empty()) {
        misfits.push_back(absl::StrCat(name, ": ", why));
        continue;
      }
    }
    candidates.push_back(std::move(candidate));
  }
  if (!nodes.fit.contains(pod.node)) {
    // Its Node is not (or no longer) listed: it is scored by name alone.
    candidates.push_back({.name = pod.node});
  }
  placement::Workload limits = pod.workload;
  limits.expected_runtime.reset();
  const std::vector<placement::ScoredCandidate> scored =
      placement::ScoreCandidates(model, candidates, limits, {.now = now});
  std::vector<std::string> excluded;
  for (const placement::ScoredCandidate& candidate : scored) {
    if (candidate.name == pod.node) {
      if (candidate.grams_per_kwh) {
        plan.here = NodeCarbon{.node = candidate.name,
                               .location = candidate.location,
                               .grid = GridOf(model, candidate.location, *candidate.grams_per_kwh),
                               .latency = candidate.latency};
      }
      continue;
    }
    if (!candidate.feasible || !candidate.grams_per_kwh) {
      excluded.push_back(absl::StrCat(candidate.name, ": ",
                                      candidate.reasons.empty()
                                          ? std::string("no carbon value")
                                          : absl::StrJoin(candidate.reasons, "; ")));
      continue;
    }
    if (!plan.best || *candidate.grams_per_kwh < plan.best->grid.grams_per_kwh) {
      plan.best = NodeCarbon{.node = candidate.name,
                             .location = candidate.location,
                             .grid = GridOf(model, candidate.location, *candidate.grams_per_kwh),
                             .latency = candidate.latency};
    }
  }
  if (!plan.here) {
    plan.why_none = absl::StrCat("its Node ", pod.node, " has no carbon value");
  } else if (!plan.best) {
    misfits.insert(misfits.end(), excluded.begin(), excluded.end());
    plan.why_none = misfits.empty() ? "no other Node"
                                    : absl::StrCat("no other Node it fits within its limits (",
                                                   absl::StrJoin(misfits, "; "), ")");
  }
  return plan;
}

}  // namespace carbonroute::rebalance
