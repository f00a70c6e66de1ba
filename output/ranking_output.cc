#include "output/ranking_output.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/printed_number.h"

namespace carbonroute::scheduler_lite {

using placement::ExtenderScore;
using placement::FrameworkScore;
using placement::ScoredCandidate;
namespace {

std::string Or(const std::string& text, const char* fallback) {
  return text.empty() ? fallback : text;
}

}  // namespace

std::string RankingTable(const std::vector<ScoredCandidate>& scored, std::size_t max_excluded) {
  std::size_t name_width = 9;
  for (const ScoredCandidate& s : scored) name_width = std::max(name_width, s.name.size());
  const int nw = static_cast<int>(name_width);
  std::string out =
      absl::StrFormat("%4s  %-*s  %-12s  %10s  %-18s  %9s  %5s\n", "rank", nw, "candidate",
                      "location", "gCO2eq/kWh", "carbon basis", "RTT", "score");
  int rank = 0;
  for (const ScoredCandidate& s : scored) {
    if (!s.feasible) continue;
    absl::StrAppendFormat(
        &out, "%4d  %-*s  %-12s  %10s  %-18s  %9s  %5d\n", ++rank, nw, s.name, Or(s.location, "-"),
        s.grams_per_kwh ? absl::StrFormat("%.2f", *s.grams_per_kwh) : std::string("n/a"),
        s.grams_per_kwh ? s.carbon_basis : std::string("no data"),
        s.latency ? absl::StrFormat("%.2f ms", absl::ToDoubleMilliseconds(*s.latency)) : "-",
        FrameworkScore(s));
    for (const std::string& reason : s.reasons) absl::StrAppend(&out, "      note: ", reason, "\n");
  }
  std::size_t excluded = 0;
  for (const ScoredCandidate& s : scored) {
    if (s.feasible || ++excluded > max_excluded) continue;
    absl::StrAppend(&out, "excluded: ", s.name, " (", absl::StrJoin(s.reasons, "; "), ")\n");
  }
  if (excluded > max_excluded) {
    absl::StrAppend(&out, "excluded: ", excluded - max_excluded, " more (--format json lists ",
                    excluded == 1 ? "it" : "every one", "; --locations ranks the ones you name)\n");
  }
  return out;
}

std::string RankingJson(const std::vector<ScoredCandidate>& scored) {
  nlohmann::json candidates = nlohmann::json::array();
  int rank = 0;
  for (const ScoredCandidate& s : scored) {
    candidates.push_back(
        {{"rank", s.feasible ? nlohmann::json(++rank) : nlohmann::json(nullptr)},
         {"name", s.name},
         {"location", s.location},
         {"region", s.region},
         {"feasible", s.feasible},
         {"score", FrameworkScore(s)},
         {"grams_per_kwh", s.grams_per_kwh ? nlohmann::json(PrintedNumber(*s.grams_per_kwh))
                                           : nlohmann::json(nullptr)},
         {"carbon_basis", s.carbon_basis},
         {"rtt_ms", s.latency
                        ? nlohmann::json(PrintedNumber(absl::ToDoubleMilliseconds(*s.latency)))
                        : nlohmann::json(nullptr)},
         {"reasons", s.reasons}});
  }
  return nlohmann::json{{"candidates", candidates}}.dump(2) + "\n";
}

std::string Explanation(const std::vector<ScoredCandidate>& scored, const std::string& name,
                        const std::string& kind,
                        const placement::PlacementModel::LocationMembers* members) {
  auto it = std::find_if(scored.begin(), scored.end(),
                         [&](const ScoredCandidate& s) { return s.name == name; });
  if (it == scored.end())
    return absl::StrCat(name, ": not a candidate (no node, region or location of that name)\n");
  const ScoredCandidate& s = *it;
  std::string out = absl::StrCat(s.name, " (", kind, ")\n");
  if (members != nullptr) {
    absl::StrAppend(
        &out, "  regions:  ",
        members->regions.empty() ? "none in the region map" : absl::StrJoin(members->regions, ", "),
        "\n  nodes:    ",
        members->nodes.empty() ? "none known" : absl::StrJoin(members->nodes, ", "), "\n");
  } else {
    absl::StrAppend(&out, "  location: ", Or(s.location, "unknown"),
                    "\n  region:   ", Or(s.region, "unknown"), "\n");
  }
  absl::StrAppend(&out, "  carbon:   ",
                  s.grams_per_kwh
                      ? absl::StrFormat("%.2f gCO2eq/kWh (%s)", *s.grams_per_kwh, s.carbon_basis)
                      : absl::StrCat("none: ", s.carbon_basis),
                  "\n");
  if (s.latency)
    absl::StrAppendFormat(&out, "  latency:  %.2f ms (largest RTT from the origins)\n",
                          absl::ToDoubleMilliseconds(*s.latency));
  if (s.feasible) {
    const auto position =
        std::count_if(scored.begin(), it + 1, [](const ScoredCandidate& c) { return c.feasible; });
    const auto feasible = std::count_if(scored.begin(), scored.end(),
                                        [](const ScoredCandidate& c) { return c.feasible; });
    absl::StrAppendFormat(&out,
                          "  verdict:  feasible, rank %d of %d, score %d/100 (extender %d/10)\n",
                          position, feasible, FrameworkScore(s), ExtenderScore(s));
  } else {
    absl::StrAppend(&out, "  verdict:  excluded\n");
  }
  for (const std::string& reason : s.reasons) absl::StrAppend(&out, "  reason:   ", reason, "\n");
  return out;
}

std::string ExplanationJson(const std::vector<ScoredCandidate>& scored, const std::string& name,
                            const std::string& kind,
                            const placement::PlacementModel::LocationMembers* members) {
  auto it = std::find_if(scored.begin(), scored.end(),
                         [&](const ScoredCandidate& s) { return s.name == name; });
  if (it == scored.end()) {
    return nlohmann::json{{"name", name}, {"error", "not a candidate"}}.dump(2) + "\n";
  }
  const ScoredCandidate& s = *it;
  nlohmann::json out{
      {"name", s.name},
      {"kind", kind},
      {"location", s.location},
      {"region", s.region},
      {"grams_per_kwh",
       s.grams_per_kwh ? nlohmann::json(PrintedNumber(*s.grams_per_kwh)) : nlohmann::json(nullptr)},
      {"carbon_basis", s.carbon_basis},
      {"rtt_ms", s.latency ? nlohmann::json(PrintedNumber(absl::ToDoubleMilliseconds(*s.latency)))
                           : nlohmann::json(nullptr)},
      {"feasible", s.feasible},
      {"rank", nullptr},
      {"of", std::count_if(scored.begin(), scored.end(),
                           [](const ScoredCandidate& c) { return c.feasible; })},
      {"score", FrameworkScore(s)},
      {"extender_score", ExtenderScore(s)},
      {"reasons", s.reasons}};
  if (s.feasible) {
    out["rank"] =
        std::count_if(scored.begin(), it + 1, [](const ScoredCandidate& c) { return c.feasible; });
  }
  if (members != nullptr) {
    out["regions"] = members->regions;
    out["nodes"] = members->nodes;
  }
  return out.dump(2) + "\n";
}

}  // namespace carbonroute::scheduler_lite
