#include "extender/extender_protocol.h"

#include <simdjson.h>

#include <cmath>
#include <optional>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/duration_text.h"
#include "base/json_escape.h"
#include "contract/api_names.h"
#include "kube/kube_node.h"

namespace carbonroute::extender {

using placement::Candidate;
using placement::CompactScores;
using placement::Workload;
namespace {

constexpr std::string_view kDelayPrefix = "delay_";
constexpr std::string_view kExpectedRuntime = api_names::kExpectedRuntimeAnnotation;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(std::string(what));
}

// metadata.<field> of an object; nullopt when absent or null. (A default-constructed
// simdjson::dom::object must not be iterated, hence the optional.)
absl::StatusOr<std::optional<simdjson::dom::object>> StringMap(simdjson::dom::element object,
                                                               const char* field,
                                                               absl::string_view path) {
  simdjson::dom::element metadata, map;
  if (object["metadata"].get(metadata) || metadata.is_null())
    return std::optional<simdjson::dom::object>();
  if (metadata[field].get(map) || map.is_null()) return std::optional<simdjson::dom::object>();
  simdjson::dom::object out;
  if (map.get_object().get(out))
    return Invalid(absl::StrCat(path, ".metadata.", field, " is not an object"));
  return std::optional<simdjson::dom::object>(out);
}

// The string at `key` of an optional map.
bool StringAt(const std::optional<simdjson::dom::object>& map, std::string_view key,
              std::string_view& out) {
  return map && !(*map)[key].get_string().get(out);
}

std::string Text(std::string_view text) { return std::string(text); }

absl::Status ReadPod(simdjson::dom::element pod, Workload& workload) {
  absl::StatusOr<std::optional<simdjson::dom::object>> labels = StringMap(pod, "labels", "Pod");
  if (!labels.ok()) return labels.status();
  if (*labels)
    for (auto [key, value] : **labels) {
      if (!key.starts_with(kDelayPrefix)) continue;
      std::string_view text;
      if (value.get_string().get(text)) {  // not a string: named as the JSON it is
        return Invalid(absl::StrCat("Pod label ", Text(key),
                                    " must be a number of milliseconds, got ",
                                    simdjson::minify(value)));
      }
      absl::StatusOr<std::optional<std::pair<std::string, absl::Duration>>> limit =
          ReadDelayLabel(Text(key), Text(text));
      if (!limit.ok()) return limit.status();
      if (*limit) workload.max_rtt[(*limit)->first] = (*limit)->second;
    }
  absl::StatusOr<std::optional<simdjson::dom::object>> annotations =
      StringMap(pod, "annotations", "Pod");
  if (!annotations.ok()) return annotations.status();
  std::string_view runtime;
  if (StringAt(*annotations, kExpectedRuntime, runtime)) {
    const std::optional<absl::Duration> d =
        ParseDurationText(absl::string_view(runtime.data(), runtime.size()));
    if (!d || *d <= absl::ZeroDuration()) {
      return Invalid(absl::StrCat("Pod annotation ", Text(kExpectedRuntime),
                                  " must be a duration such as \"2h\", got \"", Text(runtime),
                                  "\""));
    }
    workload.expected_runtime = *d;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<std::pair<std::string, absl::Duration>>> ReadDelayLabel(
    absl::string_view key, absl::string_view value) {
  const absl::string_view label = key;
  if (!absl::ConsumePrefix(&key, absl::string_view(kDelayPrefix.data(), kDelayPrefix.size()))) {
    return std::nullopt;
  }
  double ms = 0;
  if (!absl::SimpleAtod(value, &ms) || !std::isfinite(ms) || ms < 0) {
    return Invalid(absl::StrCat("Pod label ", label, " must be a number of milliseconds, got \"",
                                value, "\""));
  }
  if (key.empty()) return Invalid("Pod label delay_ names no origin");
  return std::make_pair(std::string(key), absl::Milliseconds(ms));
}

namespace {

absl::Status ReadNode(simdjson::dom::element node, std::size_t index, ExtenderArgs& args) {
  const std::string path = absl::StrCat("Nodes.items[", index, "]");
  Candidate candidate;
  std::string_view name;
  if (node["metadata"]["name"].get_string().get(name) || name.empty()) {
    return Invalid(absl::StrCat(path, ".metadata.name is missing or not a string"));
  }
  candidate.name = Text(name);
  absl::StatusOr<std::optional<simdjson::dom::object>> labels = StringMap(node, "labels", path);
  if (!labels.ok()) return labels.status();
  absl::StatusOr<std::optional<simdjson::dom::object>> annotations =
      StringMap(node, "annotations", path);
  if (!annotations.ok()) return annotations.status();
  std::string_view text;
  if (StringAt(*labels, kube::kRegionLabel, text) ||
      StringAt(*annotations, kube::kRegionAnnotation, text)) {
    candidate.region = Text(text);
  }
  if (StringAt(*labels, kube::kLocationLabel, text)) candidate.location = Text(text);
  args.candidates.push_back(std::move(candidate));
  args.raw_nodes.push_back(simdjson::minify(node));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ExtenderArgs> ParseExtenderArgs(absl::string_view body) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(body.data(), body.size()).get(root); error) {
    return Invalid(
        absl::StrCat("request body is not valid JSON: ", simdjson::error_message(error)));
  }
  if (!root.is_object()) return Invalid("request body must be a JSON object (ExtenderArgs)");
  ExtenderArgs args;
  simdjson::dom::element pod;
  if (root["Pod"].get(pod) || !pod.is_object()) return Invalid("Pod is missing or not an object");
  if (absl::Status status = ReadPod(pod, args.workload); !status.ok()) return status;
  std::string_view identity;
  if (!pod["metadata"]["uid"].get_string().get(identity)) args.pod.uid = Text(identity);
  if (!pod["metadata"]["namespace"].get_string().get(identity)) {
    args.pod.namespace_name = Text(identity);
  }
  if (!pod["metadata"]["name"].get_string().get(identity)) args.pod.name = Text(identity);
  if (!pod["spec"]["schedulerName"].get_string().get(identity)) {
    args.pod.scheduler_name = Text(identity);
  }

  simdjson::dom::element names, nodes;
  const bool has_names = !root["NodeNames"].get(names) && !names.is_null();
  const bool has_nodes = !root["Nodes"].get(nodes) && !nodes.is_null();
  if (has_names) {
    simdjson::dom::array array;
    if (names.get_array().get(array)) return Invalid("NodeNames must be an array of strings");
    args.candidates.reserve(array.size());
    std::size_t i = 0;
    for (simdjson::dom::element name : array) {
      std::string_view text;
      if (name.get_string().get(text))
        return Invalid(absl::StrCat("NodeNames[", i, "] is not a string"));
      args.candidates.push_back({Text(text), "", ""});
      ++i;
    }
    args.node_cache_capable = true;
  } else if (has_nodes) {
    simdjson::dom::array items;
    simdjson::dom::element items_element;
    if (!nodes.is_object() || nodes["items"].get(items_element))
      return Invalid("Nodes must be a NodeList with items");
    if (items_element.is_null()) {
      args.node_cache_capable = false;
      return args;
    }
    if (items_element.get_array().get(items)) return Invalid("Nodes.items must be an array");
    std::size_t i = 0;
    for (simdjson::dom::element node : items) {
      if (absl::Status status = ReadNode(node, i++, args); !status.ok()) return status;
    }
    args.node_cache_capable = false;
  } else {
    return Invalid("neither NodeNames nor Nodes is set");
  }
  return args;
}

void AppendJsonString(std::string& out, absl::string_view text) {
  out.push_back('"');
  AppendJsonEscaped(out, text);
  out.push_back('"');
}

std::string FilterReply(const ExtenderArgs& args, const CompactScores& scores) {
  std::vector<const std::string*> failure(args.candidates.size(), nullptr);
  for (const auto& [index, reason] : scores.failures) {
    if (index < failure.size()) failure[index] = &reason;
  }
  std::string passed, failed;
  for (std::size_t i = 0; i < args.candidates.size(); ++i) {
    if (failure[i] != nullptr) {
      if (!failed.empty()) failed.push_back(',');
      AppendJsonString(failed, args.candidates[i].name);
      failed.push_back(':');
      AppendJsonString(failed, absl::StrCat("carbonroute: ", *failure[i]));
      continue;
    }
    if (!passed.empty()) passed.push_back(',');
    if (args.node_cache_capable) {
      AppendJsonString(passed, args.candidates[i].name);
    } else {
      passed += args.raw_nodes[i];
    }
  }
  if (args.node_cache_capable) {
    return absl::StrCat(R"({"Nodes":null,"NodeNames":[)", passed,
                        R"(],"FailedNodes":{},"FailedAndUnresolvableNodes":{)", failed,
                        R"(},"Error":""})");
  }
  return absl::StrCat(R"({"Nodes":{"metadata":{},"items":[)", passed,
                      R"(]},"NodeNames":null,"FailedNodes":{},)",
                      R"("FailedAndUnresolvableNodes":{)", failed, R"(},"Error":""})");
}

std::string PrioritizeReply(const ExtenderArgs& args, const CompactScores& scores) {
  std::string out = "[";
  out.reserve(args.candidates.size() * 32);
  for (std::size_t i = 0; i < args.candidates.size(); ++i) {
    out += i ? R"(,{"Host":)" : R"({"Host":)";
    AppendJsonString(out, args.candidates[i].name);
    const int score = i < scores.extender_scores.size() ? scores.extender_scores[i] : 0;  // 0–10
    out += R"(,"Score":)";
    if (score >= 10) out.push_back('1');
    out.push_back(static_cast<char>('0' + score % 10));
    out.push_back('}');
  }
  out += "]";
  return out;
}

std::string FilterErrorReply(absl::string_view error) {
  std::string out =
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":null,"FailedAndUnresolvableNodes":null,"Error":)";
  AppendJsonString(out, error);
  return out + "}";
}

}  // namespace carbonroute::extender
