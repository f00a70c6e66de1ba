#include "kube/yaml_documents.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace carbonroute::kube {
namespace {

// A YAML node as JSON, plain scalars typed by YAML 1.2's core schema.
nlohmann::json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& entry : node) object[entry.first.Scalar()] = YamlToJson(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const YAML::Node& element : node) array.push_back(YamlToJson(element));
      return array;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted
      if (text == "null" || text == "~") return nullptr;
      if (text == "true" || text == "false") return text == "true";
      int64_t whole = 0;
      if (absl::SimpleAtoi(text, &whole)) return whole;
      double number = 0;
      if (text.find_first_of("0123456789") != std::string::npos &&
          text.find_first_not_of("0123456789+-.eE") == std::string::npos &&
          absl::SimpleAtod(text, &number)) {
        return number;
      }
      return text;
    }
    default:
      return nullptr;
  }
}

// The documents of a YAML stream, split on separator lines as Kubernetes'
// YAML reader splits them (k8s.io/apimachinery's yaml.YAMLReader: a line that
// is "---", alone or followed by a comment), each parsed with YAML::Load.
// yaml-cpp 0.7's LoadAll loops without end, allocating, on some malformed
// streams that Load refuses or reads (found by routing_objects_fuzz).
std::vector<std::string> SplitDocuments(absl::string_view text) {
  std::vector<std::string> documents(1);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "---")) {
      const absl::string_view rest = absl::StripAsciiWhitespace(line.substr(3));
      if (rest.empty() || rest.front() == '#') {
        documents.emplace_back();
        continue;
      }
    }
    absl::StrAppend(&documents.back(), line, "\n");
  }
  return documents;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> YamlDocumentsAsJson(absl::string_view text,
                                                             absl::string_view what) {
  std::vector<std::string> documents;
  try {
    for (const std::string& part : SplitDocuments(text)) {
      const YAML::Node document = YAML::Load(part);
      if (document.IsNull()) continue;
      // Bytes that are not UTF-8 (a Latin-1 value) become U+FFFD rather than an exception.
      documents.push_back(
          YamlToJson(document).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not YAML: ", e.what()));
  }
  return documents;
}

}  // namespace carbonroute::kube
