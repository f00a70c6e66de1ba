#include "karmada/karmada_patch.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/utc_time.h"
#include "karmada/carbon_policy.h"
#include "kube/json_view.h"
#include "kube/yaml_documents.h"
#include "yaml-cpp/yaml.h"

namespace carbonroute::karmada {

using placement::Candidate;
using placement::ScoredCandidate;
namespace {

absl::Status Invalid(absl::string_view origin, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", what));
}

// The first policy object of the file's documents (nullopt when there is none) as the
// one-shot policy, or why the one shot cannot act on it.
absl::StatusOr<std::optional<KarmadaPolicy>> PolicyObject(absl::string_view yaml,
                                                          absl::string_view origin) {
  absl::StatusOr<std::vector<std::string>> documents = kube::YamlDocumentsAsJson(yaml, origin);
  if (!documents.ok()) return std::optional<KarmadaPolicy>();  // said by the one-shot reader
  std::vector<std::string> kinds;                              // the other objects' kinds
  for (const std::string& text : *documents) {
    kube::JsonDocument document;
    absl::StatusOr<kube::JsonField> root = document.Parse(text, origin);
    if (!root.ok() || !root->is_object()) continue;
    const std::string kind = (*root)["kind"].OptionalString().value_or("");
    std::optional<PolicyKind> policy_kind;
    for (PolicyKind candidate :
         {PolicyKind::kCarbonAwareKarmadaPolicy, PolicyKind::kCarbonPlacementPolicy}) {
      if (kind == NamesOf(candidate).kind) policy_kind = candidate;
    }
    if (!policy_kind) {
      if (!kind.empty()) kinds.push_back(kind);
      continue;
    }
    absl::StatusOr<CarbonPolicy> read = ReadCarbonPolicy(*policy_kind, *root);
    if (!read.ok()) return Invalid(origin, read.status().message());
    const CarbonPolicy& policy = *read;
    if (!policy.invalid.empty()) {
      return Invalid(origin, absl::StrCat(policy.Describe(), ": ", policy.invalid));
    }
    std::vector<std::string> controllers;
    if (policy.clusters_from_karmada) {
      controllers.emplace_back("no spec.clusters (every Karmada Cluster)");
    }
    if (!policy.origin.empty()) controllers.emplace_back("spec.origin and spec.maxRttMs");
    if (policy.carbon_tolerance > 0) controllers.emplace_back("spec.carbonToleranceGramsPerKwh");
    if (policy.min_stay > absl::ZeroDuration()) controllers.emplace_back("spec.minStay");
    if (policy.replica_weights) controllers.emplace_back("spec.replicaWeights");
    if (policy.target_kind != TargetKind::kPropagationPolicy) {
      controllers.emplace_back("a ClusterPropagationPolicy target");
    }
    if (!controllers.empty()) {
      return Invalid(
          origin,
          absl::StrCat(policy.Describe(), ": ", absl::StrJoin(controllers, ", "),
                       ": the controller's (they need its state or the Karmada API server): "
                       "karmada --controller reads this object once it is applied to the Karmada "
                       "API server; --policy takes it without them, or the one-shot format of "
                       "deploy/karmada/carbonroute-placement.yaml"));
    }
    KarmadaPolicy one_shot;
    one_shot.name = policy.target_name;
    if (!policy.target_namespace.empty()) one_shot.namespace_name = policy.target_namespace;
    one_shot.desired_clusters = policy.desired_clusters;
    one_shot.clusters = policy.clusters;
    return std::optional<KarmadaPolicy>(std::move(one_shot));
  }
  if (!kinds.empty()) {
    return Invalid(origin, absl::StrCat("no CarbonAwareKarmadaPolicy or CarbonPlacementPolicy "
                                        "among its objects (",
                                        absl::StrJoin(kinds, ", "),
                                        "): --policy takes one of those, or the one-shot format "
                                        "of deploy/karmada/carbonroute-placement.yaml"));
  }
  return std::optional<KarmadaPolicy>();
}

}  // namespace

absl::StatusOr<KarmadaPolicy> ParseKarmadaPolicy(absl::string_view yaml, absl::string_view origin) {
  absl::StatusOr<std::optional<KarmadaPolicy>> object = PolicyObject(yaml, origin);
  if (!object.ok()) return object.status();
  if (*object) return **object;
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
