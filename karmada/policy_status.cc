#include "karmada/policy_status.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "base/utc_time.h"

namespace carbonroute::karmada {

using Json = nlohmann::json;

std::string StatusPatch(const CarbonPolicy& policy, const PlacementChoice* choice,
                        const std::vector<Condition>& conditions, absl::Time now) {
  Json status = Json::object();
  status["activeClusters"] = choice != nullptr ? choice->active : policy.previous.active_clusters;
  Json clusters = Json::array();
  if (choice != nullptr) {
    for (const ClusterDecision& cluster : choice->clusters) {
      Json entry = {
          {"name", cluster.name}, {"location", cluster.location}, {"isValid", cluster.valid}};
      if (cluster.valid) {
        Json intensity = {{"units", "gCO2eq/kWh"},
                          {"value", absl::StrFormat("%.2f", *cluster.grams_per_kwh)}};
        if (cluster.fetched_at) intensity["validFrom"] = UtcSeconds(*cluster.fetched_at);
        if (cluster.valid_to) intensity["validTo"] = UtcSeconds(*cluster.valid_to);
        entry["carbonIntensity"] = std::move(intensity);
      }
      if (cluster.rtt_ms) entry["rttMs"] = std::round(*cluster.rtt_ms * 100) / 100;
      if (!cluster.reason.empty()) entry["reason"] = cluster.reason;
      if (cluster.active_since) entry["activeSince"] = UtcSeconds(*cluster.active_since);
      if (cluster.weight) entry["weight"] = *cluster.weight;
      clusters.push_back(std::move(entry));
    }
    status["clusters"] = std::move(clusters);
  }
  status["observedGeneration"] = policy.generation;
  Json list = Json::array();
  for (const Condition& condition : conditions) {
    const std::string value = condition.status ? "True" : "False";
    absl::Time since = now;
    if (const auto before = policy.previous.condition_status.find(condition.type);
        before != policy.previous.condition_status.end() && before->second == value) {
      if (const auto at = policy.previous.condition_since.find(condition.type);
          at != policy.previous.condition_since.end()) {
        since = at->second;
      }
    }
    list.push_back({{"type", condition.type},
                    {"status", value},
                    {"reason", condition.reason},
                    {"message", condition.message},
                    {"lastTransitionTime", UtcSeconds(since)},
                    {"observedGeneration", policy.generation}});
  }
  status["conditions"] = std::move(list);
  return Json{{"status", status}}.dump();
}

}  // namespace carbonroute::karmada
