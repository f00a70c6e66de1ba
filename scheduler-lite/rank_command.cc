#include "scheduler-lite/rank_command.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "output/ranking_output.h"
#include "placement/candidate_names.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

using placement::Candidate;
using placement::KindOfName;
using placement::NameKind;
using placement::PlacementModel;
using placement::ResolvedNames;
using placement::ResolveNames;
using placement::ScoreCandidates;
using placement::ScoredCandidate;
using placement::ScoringOptions;
using placement::Workload;

namespace {

// Excluded candidates a table lists one by one before it sums up the rest.
constexpr std::size_t kExcludedShown = 10;

// The candidate kind `request` asks for, with "auto" decided: locations, or
// when ranking from an origin in a model that has nodes, the kind of the names
// --locations lists (the first one's: DE is a location, not an unknown node),
// else nodes.
std::string KindOf(const PlacementModel& model, const RankRequest& request) {
  if (request.candidates != "auto") return request.candidates;
  if (request.from.empty() || model.node_count() == 0) return "locations";
  if (!request.only.empty()) {
    const absl::StatusOr<placement::NameKind> named = placement::KindOfName(model, request.only[0]);
    if (named.ok()) return named->kind;
  }
  return "nodes";
}

// --from and --max-rtt-ms as the model can honour them: an origin it knows, and
// candidates an RTT can reach (nodes and cloud regions have RTTs; a grid
// location has none). What it cannot honour is a usage error, exit 2.
absl::Status CheckOrigin(const PlacementModel& model, RankRequest& request, std::ostream& err) {
  if (request.from.empty()) return absl::OkStatus();
  absl::StatusOr<placement::NameKind> origin = placement::KindOfName(model, request.from);
  if (!origin.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--from: ", origin.status().message()));
  }
  if (!origin->note.empty()) err << "scheduler-lite: note: " << origin->note << "\n";
  request.from = origin->name;
  if (request.max_rtt && KindOf(model, request) == "locations") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-rtt-ms: a grid location has no RTT (RTTs are measured between nodes and between "
        "cloud regions), so no location could meet the limit from \"",
        request.from, "\"; rank --candidates regions or --candidates nodes"));
  }
  return absl::OkStatus();
}

std::vector<Candidate> CandidatesOf(const PlacementModel& model, const RankRequest& request) {
  const std::string kind = KindOf(model, request);
  std::vector<Candidate> out;
  if (kind == "nodes") {
    for (const PlacementModel::NodeView& node : model.Nodes()) {
      out.push_back({std::string(node.name), std::string(node.location), std::string(node.region)});
    }
  } else if (kind == "regions") {
    for (const auto& [region, location] : model.RegionLocations()) {
      out.push_back({std::string(region), std::string(location), std::string(region)});
    }
  } else {
    for (const auto& [location, carbon] : model.Readings()) {
      out.push_back({std::string(location), std::string(location), ""});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Candidate& a, const Candidate& b) { return a.name < b.name; });
  if (!request.only.empty()) {
    const std::set<std::string> only(request.only.begin(), request.only.end());
    std::erase_if(out, [&](const Candidate& c) { return !only.contains(c.name); });
    for (const std::string& name :
         request.only) {  // asked for but unknown: reported, never dropped silently
      if (std::none_of(out.begin(), out.end(),
                       [&](const Candidate& c) { return c.name == name; })) {
        out.push_back({name, kind == "locations" ? name : "", ""});
      }
    }
  }
  return out;
}

std::vector<ScoredCandidate> Score(const PlacementModel& model, const RankRequest& request,
                                   absl::Time now) {
  Workload workload;
  if (!request.from.empty() && request.max_rtt) workload.max_rtt[request.from] = *request.max_rtt;
  workload.expected_runtime = request.runtime;
  ScoringOptions options;
  options.carbon_weight = request.carbon_weight;
  options.latency_weight = request.latency_weight;
  options.carbon_tolerance = request.carbon_tolerance;
  options.now = now;
  return ScoreCandidates(model, CandidatesOf(model, request), workload, options);
}

// rank and explain: the same flags; explain takes the candidate's name too.
class RankSubcommand final : public Subcommand {
 public:
  explicit RankSubcommand(bool explain) : explain_(explain) {}
  const char* name() const override { return explain_ ? "explain" : "rank"; }
  const char* description() const override {
    return explain_ ? "why one candidate scored as it did"
                    : "rank candidates, cleanest first, with scores and reasons";
  }
  void AddFlags(CLI::App& cmd) override {
    if (explain_) cmd.add_option("name", name_, "node, region or location")->required();
    sources_.AddTo(cmd);
    cmd.add_option("--candidates", request_.candidates,
                   "what is ranked: locations, nodes or regions; auto: nodes when --from is given "
                   "and the model knows nodes, else locations")
        ->check(CLI::IsMember({"auto", "locations", "nodes", "regions"}))
        ->capture_default_str();
    cmd.add_option("--locations", locations_,
                   "only these candidates, comma-separated (e.g. DE,FR,SE-SE3)");
    cmd.add_option("--from", request_.from, "origin node or region of the latency limit");
    cmd.add_option("--max-rtt-ms", max_rtt_ms_, "largest RTT from --from, milliseconds");
    cmd.add_option("--runtime", runtime_,
                   "expected runtime (e.g. 2h): score on the forecast mean over it");
    AddScoringFlags(cmd, request_.carbon_weight, request_.latency_weight,
                    request_.carbon_tolerance);
    cmd.add_option("--format", request_.format, "table or json")
        ->check(CLI::IsMember({"table", "json"}))
        ->capture_default_str();
  }
  void Validate() override {
    if (!runtime_.empty()) request_.runtime = DurationFlag(runtime_, "--runtime");
    if (!max_rtt_ms_.empty()) {
      // One limit, in ms: the example is one such ("50"), not simulate's list.
      const std::vector<double> limits = NumberListFlag(max_rtt_ms_, "--max-rtt-ms", 0, INFINITY,
                                                        "a latency limit in ms ≥ 0 such as 50");
      if (limits.size() != 1) {
        throw CLI::ValidationError("--max-rtt-ms",
                                   "expected one limit, got \"" + max_rtt_ms_ + "\"");
      }
      request_.max_rtt = absl::Milliseconds(limits[0]);
    }
    if (request_.max_rtt && request_.from.empty()) {
      throw CLI::ValidationError("--max-rtt-ms",
                                 "needs --from NODE (the origin of the latency limit)");
    }
    request_.only.clear();
    for (absl::string_view name : absl::StrSplit(locations_, ',', absl::SkipWhitespace())) {
      const std::string trimmed(absl::StripAsciiWhitespace(name));  // "DE, FR" is DE and FR
      if (std::find(request_.only.begin(), request_.only.end(), trimmed) == request_.only.end()) {
        request_.only.push_back(trimmed);
      }
    }
  }
  int Run(ProgramContext& c) override {
    if (!sources_.Resolve(request_.sources, c.err)) return 1;
    return explain_ ? ExplainCommand(request_, name_, c.http, c.clock, c.out, c.err)
                    : RankCommand(request_, c.http, c.clock, c.out, c.err);
  }

 private:
  const bool explain_;
  SourceFlags sources_;
  RankRequest request_;
  std::string locations_;
  std::string runtime_;
  std::string max_rtt_ms_;
  std::string name_;
};

}  // namespace

int RankCommand(const RankRequest& request, net::HttpClient& http, Clock& clock, std::ostream& out,
                std::ostream& err) {
  std::shared_ptr<const PlacementModel> model = LoadModelOrSay(request.sources, http, clock, err);
  if (model == nullptr) return 1;
  RankRequest resolved = request;
  if (const absl::Status origin = CheckOrigin(*model, resolved, err); !origin.ok()) {
    err << "scheduler-lite: " << origin.message() << "\n";
    return 2;
  }
  if (request.candidates == "auto" && request.only.empty() && KindOf(*model, request) == "nodes") {
    err << "scheduler-lite: note: ranking nodes (--candidates auto with --from); give "
           "--candidates locations or regions to rank those\n";
  }
  if (!request.only.empty()) {  // --locations: known names only
    absl::StatusOr<ResolvedNames> names =
        ResolveNames(*model, KindOf(*model, request), request.only);
    if (!names.ok()) {
      err << "scheduler-lite: --locations: " << names.status().message() << "\n";
      return 2;
    }
    for (const std::string& note : names->notes) err << "scheduler-lite: note: " << note << "\n";
    resolved.only = names->names;
  }
  const std::vector<ScoredCandidate> scored = Score(*model, resolved, clock.Now());
  // Without --locations, a long tail of excluded candidates is summed up in one line.
  out << (request.format == "json"
              ? RankingJson(scored)
              : RankingTable(scored, request.only.empty() ? kExcludedShown : SIZE_MAX));
  const bool any = std::any_of(scored.begin(), scored.end(),
                               [](const ScoredCandidate& s) { return s.feasible; });
  return any ? 0 : 3;
}

int ExplainCommand(const RankRequest& request, const std::string& name, net::HttpClient& http,
                   Clock& clock, std::ostream& out, std::ostream& err) {
  std::shared_ptr<const PlacementModel> model = LoadModelOrSay(request.sources, http, clock, err);
  if (model == nullptr) return 1;
  // The name is a node, a region or a location, in that order (--candidates
  // other than auto says which); it is scored among the candidates of its kind.
  RankRequest all = request;
  all.only.clear();
  std::string canonical = name;
  if (request.candidates == "auto") {
    absl::StatusOr<NameKind> kind = KindOfName(*model, name);
    if (!kind.ok()) {
      err << "scheduler-lite: " << kind.status().message() << "\n";
      return 2;
    }
    if (!kind->note.empty()) err << "scheduler-lite: note: " << kind->note << "\n";
    all.candidates = kind->kind;
    canonical = kind->name;
  } else {
    absl::StatusOr<ResolvedNames> names = ResolveNames(*model, request.candidates, {name});
    if (!names.ok()) {
      err << "scheduler-lite: " << names.status().message() << "\n";
      return 2;
    }
    canonical = names->names.front();
  }

  std::vector<ScoredCandidate> scored = Score(*model, all, clock.Now());
  if (std::none_of(scored.begin(), scored.end(),
                   [&](const ScoredCandidate& s) { return s.name == canonical; })) {
    RankRequest with_name = all;
    with_name.only = {canonical};
    std::vector<ScoredCandidate> extra = Score(*model, with_name, clock.Now());
    scored.insert(scored.end(), extra.begin(), extra.end());
  }
  const std::string kind = all.candidates.substr(0, all.candidates.size() - 1);  // "locations"
  std::optional<placement::PlacementModel::LocationMembers> members;
  if (kind == "location") members = model->MembersOf(model->LocationId(canonical));
  out << (request.format == "json" ? ExplanationJson : Explanation)(scored, canonical, kind,
                                                                    members ? &*members : nullptr);
  auto it = std::find_if(scored.begin(), scored.end(),
                         [&](const ScoredCandidate& s) { return s.name == canonical; });
  return it != scored.end() && it->feasible ? 0 : 3;
}

std::unique_ptr<Subcommand> NewRankSubcommand() { return std::make_unique<RankSubcommand>(false); }
std::unique_ptr<Subcommand> NewExplainSubcommand() {
  return std::make_unique<RankSubcommand>(true);
}

}  // namespace carbonroute::scheduler_lite
