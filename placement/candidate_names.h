// File: placement/candidate_names.h
//
// What a name given on the command line means in a model: which kind of
// candidate it is (explain's node → region → location order), and whether a
// list of names (rank --locations) names known candidates of one kind. A name
// that matches a known one but for letter case is taken as that one, with a
// note; where locations are asked for, a cloud region of the region map
// ("eastus", "us-east-1") is taken as its grid location, with a note; an
// unknown name is an error that lists the known ones.
//
// Known locations are the grid locations with a reading, or named by a node
// or by the region → location map (those may have no reading: they are
// ranked as "no data", never dropped).
//
// Errors: kInvalidArgument "unknown <kind> \"X\"; known: A, B, ... (N)".
// Thread safety: pure functions over an immutable model.
#ifndef CARBONROUTE_PLACEMENT_CANDIDATE_NAMES_H_
#define CARBONROUTE_PLACEMENT_CANDIDATE_NAMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "placement/placement_model.h"

namespace carbonroute::placement {

// "nodes", "regions" or "locations": the names of that kind in the model, sorted.
std::vector<std::string> KnownNames(const PlacementModel& model, const std::string& kind);

struct ResolvedNames {
  std::vector<std::string> names;  // as the model spells them
  std::vector<std::string> notes;  // e.g. "\"de\" taken as location \"DE\""
};
// Each of `names` as a known name of `kind`.
absl::StatusOr<ResolvedNames> ResolveNames(const PlacementModel& model, const std::string& kind,
                                           const std::vector<std::string>& names);

struct NameKind {
  std::string kind;  // "nodes", "regions" or "locations"
  std::string name;  // as the model spells it
  std::string note;  // set when letter case was corrected
};
// The first kind, in the order node, region, location, that knows `name`.
// kInvalidArgument "\"X\" is not a node, region or location ..." otherwise.
absl::StatusOr<NameKind> KindOfName(const PlacementModel& model, const std::string& name);

}  // namespace carbonroute::placement

#endif  // CARBONROUTE_PLACEMENT_CANDIDATE_NAMES_H_
