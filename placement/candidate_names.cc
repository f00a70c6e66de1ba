#include "placement/candidate_names.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace carbonroute::placement {
namespace {

// "location" for "locations", and so on.
std::string Singular(const std::string& kind) { return kind.substr(0, kind.size() - 1); }

std::string KnownList(const std::vector<std::string>& known) {
  constexpr std::size_t kShown = 24;
  std::vector<std::string> shown(known.begin(), known.begin() + std::min(kShown, known.size()));
  return absl::StrCat(known.empty() ? "none" : absl::StrJoin(shown, ", "),
                      known.size() > kShown ? ", ..." : "", " (", known.size(), ")");
}

// `name` itself if known, else the one known name equal but for case; "" if none.
std::string Match(const std::vector<std::string>& known, const std::string& name) {
  if (std::binary_search(known.begin(), known.end(), name)) return name;
  std::string found;
  for (const std::string& candidate : known) {
    if (!absl::EqualsIgnoreCase(candidate, name)) continue;
    if (!found.empty()) return "";  // ambiguous
    found = candidate;
  }
  return found;
}

}  // namespace

std::vector<std::string> KnownNames(const PlacementModel& model, const std::string& kind) {
  std::set<std::string> names;
  if (kind == "nodes") {
    for (const PlacementModel::NodeView& node : model.Nodes()) names.emplace(node.name);
  } else if (kind == "regions") {
    for (const auto& [region, location] : model.RegionLocations()) names.emplace(region);
  } else {
    for (const auto& [location, carbon] : model.Readings()) names.emplace(location);
    for (const PlacementModel::NodeView& node : model.Nodes()) {
      if (!node.location.empty()) names.emplace(node.location);
    }
    for (const auto& [region, location] : model.RegionLocations()) names.emplace(location);
  }
  return {names.begin(), names.end()};
}

absl::StatusOr<ResolvedNames> ResolveNames(const PlacementModel& model, const std::string& kind,
                                           const std::vector<std::string>& names) {
  const std::vector<std::string> known = KnownNames(model, kind);
  ResolvedNames out;
  for (const std::string& name : names) {
    std::string match = Match(known, name);
    if (match.empty() && kind == "locations") {  // a cloud region stands for its grid location
      const std::string region = Match(KnownNames(model, "regions"), name);
      for (const auto& [known_region, location] : model.RegionLocations()) {
        if (region.empty() || known_region != region) continue;
        match = std::string(location);
        out.notes.push_back(absl::StrCat("\"", name, "\" taken as location \"", match,
                                         "\" (the grid location of region ", region, ")"));
      }
      if (!match.empty()) {
        out.names.push_back(match);
        continue;
      }
    }
    if (match.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown ", Singular(kind), " \"", name, "\"; known: ", KnownList(known)));
    }
    if (match != name) {
      out.notes.push_back(
          absl::StrCat("\"", name, "\" taken as ", Singular(kind), " \"", match, "\""));
    }
    out.names.push_back(match);
  }
  return out;
}

absl::StatusOr<NameKind> KindOfName(const PlacementModel& model, const std::string& name) {
  for (const char* kind : {"nodes", "regions", "locations"}) {
    const std::string match = Match(KnownNames(model, kind), name);
    if (match.empty()) continue;
    NameKind out{kind, match, ""};
    if (match != name) {
      out.note = absl::StrCat("\"", name, "\" taken as ", Singular(kind), " \"", match, "\"");
    }
    return out;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", name, "\" is not a node, region or location this model knows; nodes: ",
      KnownList(KnownNames(model, "nodes")), "; regions: ", KnownList(KnownNames(model, "regions")),
      "; locations: ", KnownList(KnownNames(model, "locations"))));
}

}  // namespace carbonroute::placement
