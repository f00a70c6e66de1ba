#include "karmada/placement_choice.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/utc_time.h"

namespace carbonroute::karmada {

using placement::ScoredCandidate;

namespace {

std::string Grams(double grams) { return absl::StrFormat("%.2f gCO2eq/kWh", grams); }

std::string List(const std::vector<std::string>& names) {
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

// Rule 5: round(100 × c_min / c), ≥ 1; intensities below 1 count as 1.
std::map<std::string, int64_t> Weights(const std::vector<const ScoredCandidate*>& chosen) {
  std::map<std::string, int64_t> weights;
  double cleanest = HUGE_VAL;
  for (const ScoredCandidate* s : chosen) cleanest = std::min(cleanest, *s->grams_per_kwh);
  cleanest = std::max(cleanest, 1.0);
  for (const ScoredCandidate* s : chosen) {
    const double grams = std::max(*s->grams_per_kwh, 1.0);
    weights[s->name] = std::max<int64_t>(1, std::llround(100.0 * cleanest / grams));
  }
  return weights;
}

}  // namespace

PlacementChoice ChoosePlacement(const ChoiceInput& input) {
  const CarbonPolicy& policy = *input.policy;
  const std::size_t desired = static_cast<std::size_t>(policy.desired_clusters);
  const std::set<std::string> current(input.current.begin(), input.current.end());
  PlacementChoice choice;
  std::vector<const ScoredCandidate*> eligible;
  for (const ScoredCandidate& s : *input.scored) {
    ClusterDecision decision;
    decision.name = s.name;
    decision.location = s.location;
    decision.grams_per_kwh = s.grams_per_kwh;
    if (const auto it = input.readings.find(s.name); it != input.readings.end()) {
      decision.valid_to = it->second.first;
      decision.fetched_at = it->second.second;
    }
    if (!policy.origin.empty() && s.latency) {
      decision.rtt_ms = absl::ToDoubleMilliseconds(*s.latency);
    }
    decision.valid = s.feasible && s.grams_per_kwh.has_value();
    if (!s.grams_per_kwh) choice.missing_data.push_back(s.name);
    if (decision.valid) {
      eligible.push_back(&s);
    } else {
      decision.reason = absl::StrCat(
          "not eligible: ", s.reasons.empty() ? s.carbon_basis : absl::StrJoin(s.reasons, "; "));
    }
    choice.clusters.push_back(std::move(decision));
  }

  auto keep_current = [&](std::string why) {
    choice.active = input.current;
    choice.message = std::move(why);
    choice.state = choice.message;
    for (ClusterDecision& decision : choice.clusters) {
      decision.active = current.contains(decision.name);
      if (!decision.active) continue;
      const auto since = policy.previous.active_since.find(decision.name);
      decision.active_since =
          since == policy.previous.active_since.end() ? input.now : since->second;
      if (decision.reason.empty()) decision.reason = "kept: the placement is not changed";
    }
    return choice;
  };
  if (eligible.size() < desired && !choice.missing_data.empty()) {
    choice.kept_for_missing_data = true;
    return keep_current(
        absl::StrCat("kept clusterNames ", List(input.current), ": only ", eligible.size(), " of ",
                     desired, " clusters are eligible and ", List(choice.missing_data),
                     " have no current carbon reading (missing data never widens the placement)"));
  }
  if (eligible.empty()) {
    return keep_current(absl::StrCat("kept clusterNames ", List(input.current),
                                     ": no cluster is within the latency limit"));
  }

  // Rule 3: who stays. The best alternative: the cleanest eligible cluster not chosen now.
  std::optional<double> best_alternative;
  for (const ScoredCandidate* s : eligible) {
    if (current.contains(s->name)) continue;
    if (!best_alternative || *s->grams_per_kwh < *best_alternative) {
      best_alternative = s->grams_per_kwh;
    }
  }
  std::map<std::string, std::string> why;
  std::vector<const ScoredCandidate*> chosen;
  // Among the `desired` cleanest: chosen on its own merit, not by stickiness.
  const auto top =
      eligible.begin() + static_cast<std::ptrdiff_t>(std::min(desired, eligible.size()));
  auto cleanest = [&](const ScoredCandidate* s) {
    return std::find(eligible.begin(), top, s) != top;
  };
  for (const ScoredCandidate* s : eligible) {
    if (!current.contains(s->name) || chosen.size() >= desired) continue;
    const auto since = policy.previous.active_since.find(s->name);
    if (cleanest(s)) {
      why[s->name] = absl::StrCat("chosen: ", Grams(*s->grams_per_kwh), ", among the ", desired,
                                  " cleanest eligible");
      chosen.push_back(s);
    } else if (since != policy.previous.active_since.end() &&
               input.now < since->second + policy.min_stay) {
      why[s->name] = absl::StrCat("stays: chosen at ", UtcSeconds(since->second), ", minStay ",
                                  absl::FormatDuration(policy.min_stay));
      chosen.push_back(s);
    } else if (!best_alternative ||
               *s->grams_per_kwh <= *best_alternative + policy.carbon_tolerance) {
      why[s->name] = best_alternative
                         ? absl::StrCat("stays: ", Grams(*s->grams_per_kwh),
                                        " is within the tolerance ", policy.carbon_tolerance,
                                        " of the best alternative ", Grams(*best_alternative))
                         : "stays: no eligible alternative";
      chosen.push_back(s);
    }
  }
  for (const ScoredCandidate* s : eligible) {
    if (chosen.size() >= desired) break;
    if (std::find(chosen.begin(), chosen.end(), s) != chosen.end()) continue;
    why[s->name] = absl::StrCat("chosen: ", Grams(*s->grams_per_kwh), ", among the ", desired,
                                " cleanest eligible");
    chosen.push_back(s);
  }
  // Cleanest first, as scoring ordered them.
  std::vector<const ScoredCandidate*> ordered;
  for (const ScoredCandidate* s : eligible) {
    if (std::find(chosen.begin(), chosen.end(), s) != chosen.end()) ordered.push_back(s);
  }
  for (const ScoredCandidate* s : ordered) choice.active.push_back(s->name);
  if (policy.replica_weights && input.divided) choice.weights = Weights(ordered);

  const std::set<std::string> active(choice.active.begin(), choice.active.end());
  choice.changed = active != current;
  for (ClusterDecision& decision : choice.clusters) {
    decision.active = active.contains(decision.name);
    if (decision.active) {
      const auto since = policy.previous.active_since.find(decision.name);
      decision.active_since =
          current.contains(decision.name) && since != policy.previous.active_since.end()
              ? since->second
              : input.now;
      decision.reason = why[decision.name];
      if (const auto w = choice.weights.find(decision.name); w != choice.weights.end()) {
        decision.weight = w->second;
      }
    } else if (decision.valid) {
      decision.reason = absl::StrCat("not chosen: ", Grams(*decision.grams_per_kwh),
                                     "; the chosen clusters are cleaner or stay");
    }
  }
  choice.message =
      choice.changed ? absl::StrCat("moved from ", List(input.current), " to ", List(choice.active),
                                    " (carbonToleranceGramsPerKwh ", policy.carbon_tolerance,
                                    ", minStay ", absl::FormatDuration(policy.min_stay), ")")
                     : absl::StrCat("unchanged: ", List(choice.active));
  choice.state = absl::StrCat("placed on ", List(choice.active));
  if (choice.active.size() < desired) {
    const std::string few = absl::StrCat("; only ", choice.active.size(), " of ", desired,
                                         " clusters are within the latency limit");
    absl::StrAppend(&choice.message, few);
    absl::StrAppend(&choice.state, few);
  }
  return choice;
}

}  // namespace carbonroute::karmada
