#include "karmada/karmada_patch.h"

#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/utc_time.h"
#include "yaml-cpp/yaml.h"

namespace carbonroute::karmada {

using placement::Candidate;
using placement::ScoredCandidate;
namespace {

absl::Status Invalid(absl::string_view origin, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", what));
}

}  // namespace

absl::StatusOr<KarmadaPolicy> ParseKarmadaPolicy(absl::string_view yaml, absl::string_view origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Invalid(origin,
                   absl::StrCat("YAML syntax error at line ", e.mark.line + 1, ": ", e.msg));
  }
  if (!root.IsMap()) return Invalid(origin, "expected a mapping");
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (key != "propagationPolicy" && key != "clusters" && key != "desiredClusters") {
      return Invalid(origin, absl::StrCat(key, ": unknown key"));
    }
  }
  KarmadaPolicy policy;
  const YAML::Node pp = root["propagationPolicy"];
  if (!pp || !pp.IsMap() || !pp["name"] || !pp["name"].IsScalar() || pp["name"].Scalar().empty()) {
    return Invalid(origin, "propagationPolicy.name: required key is missing");
  }
  policy.name = pp["name"].Scalar();
  if (pp["namespace"]) policy.namespace_name = pp["namespace"].Scalar();
  if (root["desiredClusters"]) {
    const std::string text = root["desiredClusters"].Scalar();
    try {
      policy.desired_clusters = std::stoi(text);
    } catch (...) {
      policy.desired_clusters = 0;
    }
    if (policy.desired_clusters < 1) {
      return Invalid(
          origin, absl::StrCat("desiredClusters: expected a positive integer, got \"", text, "\""));
    }
  }
  const YAML::Node clusters = root["clusters"];
  if (!clusters || !clusters.IsSequence() || clusters.size() == 0) {
    return Invalid(origin, "clusters: list at least one member cluster");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    const YAML::Node c = clusters[i];
    const std::string path = absl::StrCat("clusters[", i, "]");
    if (!c.IsMap()) {
      return Invalid(origin, absl::StrCat(path, ": expected {name, location} or {name, region}"));
    }
    for (const auto& entry : c) {  // a misspelt key is named, not mistaken for a missing one
      const std::string key = entry.first.Scalar();
      if (key != "name" && key != "location" && key != "region") {
        return Invalid(
            origin,
            absl::StrCat(path, ".", key, ": unknown key (a cluster has name, location, region)"));
      }
    }
    if (!c["name"] || c["name"].Scalar().empty())
      return Invalid(origin, absl::StrCat(path, ".name: required key is missing"));
    Candidate candidate{c["name"].Scalar(), c["location"] ? c["location"].Scalar() : "",
                        c["region"] ? c["region"].Scalar() : ""};
    if (candidate.location.empty() && candidate.region.empty()) {
      return Invalid(origin, absl::StrCat(path, ": give a location (grid zone) or a region"));
    }
    if (!names.insert(candidate.name).second) {
      return Invalid(origin,
                     absl::StrCat(path, ".name: duplicate cluster \"", candidate.name, "\""));
    }
    policy.clusters.push_back(std::move(candidate));
  }
  return policy;
}

KarmadaPatch MakeKarmadaPatch(const KarmadaPolicy& policy,
                              const std::vector<ScoredCandidate>& scored, absl::Time now) {
  KarmadaPatch patch;
  std::vector<std::string> readings;
  for (const ScoredCandidate& s : scored) {
    if (!s.feasible || static_cast<int>(patch.cluster_names.size()) >= policy.desired_clusters)
      continue;
    patch.cluster_names.push_back(s.name);
    readings.push_back(s.grams_per_kwh
                           ? absl::StrFormat("%s=%s:%.2f gCO2eq/kWh (%s)", s.name, s.location,
                                             *s.grams_per_kwh, s.carbon_basis)
                           : absl::StrCat(s.name, "=", s.location, ":no data"));
  }
  patch.readings = absl::StrJoin(readings, "; ");
  const std::string when = UtcSeconds(now);
  nlohmann::json json = {
      {"metadata",
       {{"annotations",
         {{"carbonroute.io/placement-readings", patch.readings},
          {"carbonroute.io/placement-time", when}}}}},
      {"spec", {{"placement", {{"clusterAffinity", {{"clusterNames", patch.cluster_names}}}}}}}};
  patch.json = json.dump();
  patch.yaml =
      absl::StrCat("# carbonroute: the ", patch.cluster_names.size(), " cleanest of ",
                   policy.clusters.size(), " member clusters at ", when, "\n# ", patch.readings,
                   "\n# merge patch for propagationpolicy/", policy.name, " -n ",
                   policy.namespace_name, " (--apply sends it to the Karmada API server)\n");
  absl::StrAppend(&patch.yaml, "metadata:\n  annotations:\n    carbonroute.io/placement-readings: ",
                  nlohmann::json(patch.readings).dump(), "\n    carbonroute.io/placement-time: \"",
                  when, "\"\nspec:\n  placement:\n    clusterAffinity:\n      clusterNames:\n");
  for (const std::string& name : patch.cluster_names)
    absl::StrAppend(&patch.yaml, "        - ", name, "\n");
  return patch;
}

}  // namespace carbonroute::karmada
