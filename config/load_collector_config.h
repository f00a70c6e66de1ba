// File: config/load_collector_config.h
//
// Loads and validates carbonroute-collector's YAML configuration.
//
// Strict by design: an unknown key is an error (a typo must not be silently
// ignored), and every error names the key path and the offending value, e.g.
//   offline.yaml: providers[1].type: unknown provider type "wattime"; expected one of:
//   replay, static, watttime, electricity_maps, uk_carbon_intensity
//
// Errors: every function returns kInvalidArgument for a malformed or invalid
// configuration; LoadCollectorConfig returns kNotFound when the file cannot be
// read. Nothing here touches the network or other files.
//
// Thread safety: pure functions, safe to call concurrently.
#ifndef CARBONROUTE_CONFIG_LOAD_COLLECTOR_CONFIG_H_
#define CARBONROUTE_CONFIG_LOAD_COLLECTOR_CONFIG_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "config/collector_config.h"

namespace carbonroute {

// Parses YAML text. `origin` (usually the file name) prefixes error messages.
// `node_name`, when not empty, is the command line's --node-name: it replaces
// node.name before the checks (so a file without one is complete with it).
absl::StatusOr<CollectorConfig> ParseCollectorConfig(absl::string_view yaml,
                                                     absl::string_view origin,
                                                     absl::string_view node_name = "");

// Reads and parses the file at `path`; `node_name` as ParseCollectorConfig's.
absl::StatusOr<CollectorConfig> LoadCollectorConfig(const std::string& path,
                                                    absl::string_view node_name = "");

// The top-level keys (`providers`, `poll`, `node`, ...) whose YAML differs
// between two texts of a configuration file, in file order (a key added or
// removed counts); keys in `ignored` are left out. A text that does not parse
// as YAML differs everywhere: every key of the other. For SIGHUP, which
// applies only some sections (collector/reloader.h).
std::vector<std::string> ChangedSections(absl::string_view before, absl::string_view after,
                                         const std::set<std::string>& ignored);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONFIG_LOAD_COLLECTOR_CONFIG_H_
