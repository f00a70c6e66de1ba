#include "config/yaml_reader.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/duration_text.h"
#include "base/usage.h"

namespace carbonroute::config_internal {
namespace {

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::StatusOr<std::string> ScalarAt(const YAML::Node& node, absl::string_view path) {
  if (!node.IsScalar())
    return Invalid(path, absl::StrCat("expected a value, got ", Describe(node)));
  return node.Scalar();
}

}  // namespace

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return absl::StrCat("\"", node.Scalar(), "\"");
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

absl::StatusOr<MappingReader> MappingReader::Create(const YAML::Node& node, std::string path) {
  if (node && !node.IsNull() && !node.IsMap()) {
    return Invalid(path.empty() ? "(document)" : path,
                   absl::StrCat("expected a mapping, got ", Describe(node)));
  }
  // yaml-cpp keeps both entries of a duplicated key and lookups see the first:
  // the second (say, a second `node:` block) would be ignored without a word.
  if (node && node.IsMap()) {
    std::map<std::string, YAML::Mark> first_seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) continue;
      const std::string key = entry.first.Scalar();
      const YAML::Mark mark = entry.first.Mark();
      auto [it, inserted] = first_seen.emplace(key, mark);
      if (!inserted) {
        const std::string key_path = path.empty() ? key : absl::StrCat(path, ".", key);
        // Two keys on one line (a flow mapping, {a: 1, a: 2}) are told apart by their columns.
        const std::string where =
            it->second.line == mark.line
                ? absl::StrCat("twice on line ", mark.line + 1, " (columns ", it->second.column + 1,
                               " and ", mark.column + 1, ")")
                : absl::StrCat("at lines ", it->second.line + 1, " and ", mark.line + 1);
        return Invalid(key_path, absl::StrCat("duplicated key, ", where, "; keep one"));
      }
    }
  }
  return MappingReader(node, std::move(path));
}

bool MappingReader::Has(absl::string_view key) const {
  return node_ && node_.IsMap() && node_[std::string(key)];
}

std::string MappingReader::PathOf(absl::string_view key) const {
  return path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key);
}

std::string MappingReader::Written(absl::string_view key) const {
  if (!node_ || !node_.IsMap()) return "";
  const YAML::Node& const_node = node_;  // const lookup does not insert
  const YAML::Node value = const_node[std::string(key)];
  return value && value.IsScalar() ? value.Scalar() : "";
}

YAML::Node MappingReader::Take(absl::string_view key) {
  consumed_.insert(std::string(key));
  if (!node_ || !node_.IsMap()) return YAML::Node();
  const YAML::Node& const_node = node_;  // const lookup does not insert
  return const_node[std::string(key)];
}

absl::Status MappingReader::ReadString(absl::string_view key, std::string& out, bool required) {
  YAML::Node value = Take(key);
  if (!value || value.IsNull()) {
    return required ? Invalid(PathOf(key), "required key is missing") : absl::OkStatus();
  }
  absl::StatusOr<std::string> scalar = ScalarAt(value, PathOf(key));
  if (!scalar.ok()) return scalar.status();
  out = *std::move(scalar);
  return absl::OkStatus();
}

absl::Status MappingReader::ReadDouble(absl::string_view key, double& out) {
  YAML::Node value = Take(key);
  if (!value || value.IsNull()) return absl::OkStatus();
  absl::StatusOr<std::string> scalar = ScalarAt(value, PathOf(key));
  if (!scalar.ok()) return scalar.status();
  double parsed = 0;
  if (!absl::SimpleAtod(*scalar, &parsed) || !std::isfinite(parsed)) {
    return Invalid(PathOf(key), absl::StrCat("expected a finite number, got \"", *scalar, "\""));
  }
  out = parsed;
  return absl::OkStatus();
}

absl::Status MappingReader::ReadBool(absl::string_view key, bool& out) {
  YAML::Node value = Take(key);
  if (!value || value.IsNull()) return absl::OkStatus();
  absl::StatusOr<std::string> scalar = ScalarAt(value, PathOf(key));
  if (!scalar.ok()) return scalar.status();
  if (*scalar != "true" && *scalar != "false") {
    return Invalid(PathOf(key), absl::StrCat("expected true or false, got \"", *scalar, "\""));
  }
  out = *scalar == "true";
  return absl::OkStatus();
}

absl::Status MappingReader::ReadDuration(absl::string_view key, absl::Duration& out) {
  YAML::Node value = Take(key);
  if (!value || value.IsNull()) return absl::OkStatus();
  absl::StatusOr<std::string> scalar = ScalarAt(value, PathOf(key));
  if (!scalar.ok()) return scalar.status();
  const std::optional<absl::Duration> parsed = ParseDurationText(*scalar);
  if (!parsed) {
    return Invalid(PathOf(key), absl::StrCat("expected a duration such as \"90s\", \"1h\" or "
                                             "\"7d\", got \"",
                                             *scalar, "\""));
  }
  out = *parsed;
  return absl::OkStatus();
}

absl::Status MappingReader::ReadStringList(absl::string_view key, std::vector<std::string>& out) {
  YAML::Node value = Take(key);
  if (!value || value.IsNull()) return absl::OkStatus();
  if (!value.IsSequence()) {
    return Invalid(PathOf(key), absl::StrCat("expected a list, got ", Describe(value)));
  }
  std::vector<std::string> items;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item_path = absl::StrCat(PathOf(key), "[", i, "]");
    absl::StatusOr<std::string> scalar = ScalarAt(value[i], item_path);
    if (!scalar.ok()) return scalar.status();
    // A list names each thing once: [DE, FR, DE] is a slip, not a wish.
    if (auto first = std::find(items.begin(), items.end(), *scalar); first != items.end()) {
      return Invalid(item_path, absl::StrCat("\"", *scalar, "\" is listed twice (also at [",
                                             first - items.begin(), "]); keep one"));
    }
    items.push_back(*std::move(scalar));
  }
  out = std::move(items);
  return absl::OkStatus();
}

absl::Status MappingReader::ReadSecret(absl::string_view key, SecretRef& out) {
  YAML::Node value = Take(key);
  if (!value || value.IsNull()) return absl::OkStatus();
  if (value.IsScalar()) {
    out = {SecretRef::Source::kLiteral, value.Scalar()};
    return absl::OkStatus();
  }
  if (!value.IsMap() || value.size() != 1) {
    return Invalid(PathOf(key),
                   "expected {env: NAME}, {file: PATH}, {credential: NAME} or a string");
  }
  const std::string kind = value.begin()->first.Scalar();
  // A copy: the iterator begin() returns holds the pair, and dies with this statement.
  const YAML::Node ref = value.begin()->second;
  const std::string path = absl::StrCat(PathOf(key), ".", kind);
  if (!ref.IsScalar() || ref.Scalar().empty())
    return Invalid(path, "expected a non-empty name or path");
  if (kind == "env") {
    out = {SecretRef::Source::kEnv, ref.Scalar()};
  } else if (kind == "file") {
    out = {SecretRef::Source::kFile, ref.Scalar()};
  } else if (kind == "credential") {
    out = {SecretRef::Source::kCredential, ref.Scalar()};
  } else {
    return Invalid(path, "unknown key; expected env, file or credential");
  }
  return absl::OkStatus();
}

absl::Status MappingReader::ReadNumberMap(absl::string_view key,
                                          std::map<std::string, double>& out) {
  absl::StatusOr<MappingReader> child = ReadMapping(key);
  if (!child.ok()) return child.status();
  if (!child->node_ || child->node_.IsNull()) return absl::OkStatus();
  std::map<std::string, double> values;
  for (const auto& entry : child->node_) {
    const std::string name = entry.first.Scalar();
    double number = 0;
    if (absl::Status s = child->ReadDouble(name, number); !s.ok()) return s;
    values[name] = number;
  }
  out = std::move(values);
  return absl::OkStatus();
}

absl::StatusOr<MappingReader> MappingReader::ReadMapping(absl::string_view key) {
  return Create(Take(key), PathOf(key));
}

absl::StatusOr<std::vector<YAML::Node>> MappingReader::ReadSequence(absl::string_view key) {
  YAML::Node value = Take(key);
  std::vector<YAML::Node> items;
  if (!value || value.IsNull()) return items;
  if (!value.IsSequence()) {
    return Invalid(PathOf(key), absl::StrCat("expected a list, got ", Describe(value)));
  }
  for (const auto& item : value) items.push_back(item);
  return items;
}

absl::Status MappingReader::ExpectOnly(std::initializer_list<absl::string_view> known) const {
  if (!node_ || !node_.IsMap()) return absl::OkStatus();
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const std::string closest =
          ClosestMatch(key, std::vector<std::string>(known.begin(), known.end()));
      return Invalid(PathOf(key), closest.empty()
                                      ? std::string("unknown key")
                                      : absl::StrCat("unknown key; did you mean ", closest, "?"));
    }
  }
  return absl::OkStatus();
}

absl::Status MappingReader::Finish() const {
  if (!node_ || !node_.IsMap()) return absl::OkStatus();
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (!consumed_.contains(key)) return Invalid(PathOf(key), "unknown key");
  }
  return absl::OkStatus();
}

}  // namespace carbonroute::config_internal
