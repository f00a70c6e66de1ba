#include "routing/policy_file.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/usage.h"
#include "kube/json_view.h"
#include "kube/kube_node.h"
#include "kube/yaml_documents.h"

namespace carbonroute::routing {
namespace {

using YamlJson = nlohmann::json;

// `object`'s member `key`, or null when `object` is not an object or has none (a file's
// value of another type is not an exception: nlohmann's value() throws on it).
const YamlJson* Member(const YamlJson& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The string member `key` of `object`; "" when absent or of another type.
std::string StringMember(const YamlJson& object, const char* key) {
  const YamlJson* member = Member(object, key);
  return member != nullptr && member->is_string() ? member->get<std::string>() : "";
}

// Every document of `text`, as JSON values.
absl::StatusOr<std::vector<YamlJson>> ReadDocuments(const std::string& text,
                                                    const std::string& path) {
  absl::StatusOr<std::vector<std::string>> texts = kube::YamlDocumentsAsJson(text, path);
  if (!texts.ok()) return texts.status();
  std::vector<YamlJson> documents;
  for (const std::string& json : *texts) documents.push_back(YamlJson::parse(json));
  return documents;
}

// The fields of the CarbonRoutingPolicy CRD's schema (crd-carbonroutingpolicies.yaml), where a
// file's policy may hold nothing else: the API server prunes unknown fields and kubectl refuses
// them, so a file read offline must not plan with `maxRtt: 5` silently ignored.
const std::vector<std::string> kPolicyKeys = {"apiVersion", "kind", "metadata", "spec", "status"};
const std::vector<std::string> kSpecKeys = {
    "targetRefs", "maxRttMs",        "carbonToleranceGramsPerKwh",
    "minStay",    "headroomPercent", "joulesPerRequest",
    "localities", "origins"};
const std::vector<std::string> kTargetRefKeys = {"group", "kind", "name"};
const std::vector<std::string> kLocalityKeys = {"locality", "location", "region", "capacity"};
const std::vector<std::string> kOriginKeys = {"locality", "location", "region", "demand"};

// "PATH.KEY: unknown field (did you mean NEAREST?)" for the first key of `object` not in
// `known`; "" when none (or `object` is not an object: the reader names that).
std::string UnknownField(const YamlJson& object, const std::string& path,
                         const std::vector<std::string>& known) {
  if (!object.is_object()) return "";
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string nearest = ClosestMatch(key, known);
    return absl::StrCat(path, key, ": unknown field",
                        nearest.empty() ? absl::StrCat(" (", path.empty() ? "a policy" : path,
                                                       " has ", absl::StrJoin(known, ", "), ")")
                                        : absl::StrCat(" (did you mean ", nearest, "?)"));
  }
  return "";
}

// The first unknown field of a policy document, as the API server's strict validation names it.
std::string UnknownPolicyField(const YamlJson& policy) {
  if (std::string unknown = UnknownField(policy, "", kPolicyKeys); !unknown.empty()) return unknown;
  if (!policy.contains("spec") || !policy["spec"].is_object()) return "";
  const YamlJson& spec = policy["spec"];
  if (std::string unknown = UnknownField(spec, "spec.", kSpecKeys); !unknown.empty())
    return unknown;
  for (const auto& [list, keys] :
       {std::pair{"targetRefs", &kTargetRefKeys}, std::pair{"localities", &kLocalityKeys},
        std::pair{"origins", &kOriginKeys}}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (std::size_t i = 0; i < spec[list].size(); ++i) {
      std::string unknown =
          UnknownField(spec[list][i], absl::StrCat("spec.", list, "[", i, "]."), *keys);
      if (!unknown.empty()) return unknown;
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<PolicyFile> ReadPolicyFile(const std::string& text, const std::string& path) {
  absl::StatusOr<std::vector<YamlJson>> documents = ReadDocuments(text, path);
  if (!documents.ok()) return documents.status();
  PolicyFile file;
  std::optional<RoutingPolicy> policy;
  for (const YamlJson& document : *documents) {
    const std::string kind = StringMember(document, "kind");
    const YamlJson* metadata = Member(document, "metadata");
    if ((kind == "DestinationRule" || kind == "HTTPRoute") && metadata != nullptr) {
      (kind == "HTTPRoute" ? file.routes : file.rules)[StringMember(*metadata, "name")] =
          document.dump();
      continue;
    }
    if (kind == "Service" && metadata != nullptr) {
      const YamlJson* labels = Member(*metadata, "labels");
      file.service_regions[absl::StrCat(StringMember(*metadata, "namespace"), "/",
                                        StringMember(*metadata, "name"))] =
          labels == nullptr ? "" : StringMember(*labels, kube::kRegionLabel);
      continue;
    }
    if (kind != kPolicyKind) continue;
    if (policy) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": more than one CarbonRoutingPolicy (give one per run)"));
    }
    if (const std::string unknown = UnknownPolicyField(document); !unknown.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", unknown));
    }
    kube::JsonDocument parsed;
    absl::StatusOr<kube::JsonField> root = parsed.Parse(document.dump(), kPolicyKind);
    absl::StatusOr<RoutingPolicy> read = root.ok() ? ReadRoutingPolicy(*root) : root.status();
    if (!read.ok())
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", read.status().message()));
    policy = *std::move(read);
  }
  if (!policy) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no document of kind CarbonRoutingPolicy"));
  }
  file.policy = *std::move(policy);
  return file;
}

}  // namespace carbonroute::routing
