// File: config/yaml_reader.h  (internal to config/: not included elsewhere)
//
// Strict, path-aware reading of a YAML mapping. Each Read* call consumes a
// key; Finish() reports any key that was never consumed as unknown. Every
// error is kInvalidArgument and starts with the key path (`providers[0].type`)
// and, for bad values, quotes the value.
//
// Thread safety: an instance is not shared across threads.
#ifndef CARBONROUTE_CONFIG_YAML_READER_H_
#define CARBONROUTE_CONFIG_YAML_READER_H_

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "config/collector_config.h"
#include "yaml-cpp/yaml.h"

namespace carbonroute::config_internal {

class MappingReader {
 public:
  // `path` is this mapping's key path ("" for the document root).
  // kInvalidArgument if `node` is neither a mapping nor null/absent.
  static absl::StatusOr<MappingReader> Create(const YAML::Node& node, std::string path);

  bool Has(absl::string_view key) const;
  // The scalar at `key` as written ("-60s"), for messages; "" if absent or not a scalar.
  std::string Written(absl::string_view key) const;
  // "parent.key", or "key" at the root.
  std::string PathOf(absl::string_view key) const;

  // Each Read* leaves `out` unchanged when the key is absent, unless `required`.
  absl::Status ReadString(absl::string_view key, std::string& out, bool required = false);
  absl::Status ReadDouble(absl::string_view key, double& out);
  // true or false as YAML 1.2 writes them (yes/no/on/off are refused, naming the value).
  absl::Status ReadBool(absl::string_view key, bool& out);
  // Durations in the one syntax of base/duration_text.h: "90s", "1h30m", "7d".
  absl::Status ReadDuration(absl::string_view key, absl::Duration& out);
  absl::Status ReadStringList(absl::string_view key, std::vector<std::string>& out);
  // A secret reference: a scalar (literal) or a mapping with exactly one of
  // `env`, `file`, `credential` (see SecretRef). Error messages never quote a literal.
  absl::Status ReadSecret(absl::string_view key, SecretRef& out);
  // A mapping of scalar keys to numbers, e.g. `{DE: 300, FR: 56}`.
  absl::Status ReadNumberMap(absl::string_view key, std::map<std::string, double>& out);
  // The child mapping at `key` (empty if absent).
  absl::StatusOr<MappingReader> ReadMapping(absl::string_view key);
  // The elements of the sequence at `key` (empty if absent).
  absl::StatusOr<std::vector<YAML::Node>> ReadSequence(absl::string_view key);

  // kInvalidArgument naming the first key of the mapping not in `known`.
  // Called before reading, so that a misspelt key is reported as unknown
  // rather than as the required key it was meant to be.
  absl::Status ExpectOnly(std::initializer_list<absl::string_view> known) const;

  // kInvalidArgument naming the first key that no Read* consumed.
  absl::Status Finish() const;

 private:
  MappingReader(const YAML::Node& node, std::string path) : node_(node), path_(std::move(path)) {}
  // Marks `key` consumed and returns its node (null node if absent).
  YAML::Node Take(absl::string_view key);

  YAML::Node node_;
  std::string path_;
  std::set<std::string, std::less<>> consumed_;
};

// Quotes a scalar for an error message, e.g. `"wattime"`, or describes a non-scalar.
std::string Describe(const YAML::Node& node);

}  // namespace carbonroute::config_internal

#endif  // CARBONROUTE_CONFIG_YAML_READER_H_
