#include "scheduler-lite/commands.h"

#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/data_files.h"
#include "extender/extender_service.h"
#include "model_sources/forecast_client.h"
#include "net/http_server.h"
#include "net/web_config.h"
#include "placement/best_window.h"
#include "placement/candidate_names.h"
#include "scheduler-lite/karmada_patch.h"
#include "scheduler-lite/ranking_output.h"
#include "scheduler-lite/run_program.h"

namespace carbonroute::scheduler_lite {

using extender::ExtenderService;
using extender::ModelStore;
using extender::TuneAllocatorForLargeRequests;
using model_sources::FetchForecast;
using model_sources::LoadedModel;
using model_sources::LoadModel;
using model_sources::ModelSources;
using placement::BestWindow;
using placement::Candidate;
using placement::FindBestWindow;
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

// Loads the model; prints source errors as warnings. nullopt (exit 1) if nothing could be read.
std::shared_ptr<const PlacementModel> Load(const ModelSources& sources, net::HttpClient& http,
                                           Clock& clock, std::ostream& err) {
  LoadedModel loaded = LoadModel(sources, http, clock.Now());
  for (const absl::Status& error : loaded.errors)
    err << "scheduler-lite: warning: " << error.message() << "\n";
  // --emissions-type is a preference: say where the other kind had to do.
  std::vector<std::string> fallback;
  for (const auto& [location, carbon] : loaded.model->Readings()) {
    if (carbon->emissions_type != sources.emissions_type) fallback.emplace_back(location);
  }
  if (!fallback.empty() && sources.emissions_type == EmissionsType::kMarginal) {
    std::sort(fallback.begin(), fallback.end());
    err << "scheduler-lite: note: no marginal signal for " << absl::StrJoin(fallback, ", ")
        << ": scored on average emissions there\n";
  }
  if (loaded.sources_read == 0) {
    err << "scheduler-lite: no source could be read"
        << (sources.default_source ? " (give --metrics URL or --prometheus URL)" : "") << "\n";
    return nullptr;
  }
  return loaded.model;
}

// The candidate kind `request` asks for, with "auto" decided.
std::string KindOf(const PlacementModel& model, const RankRequest& request) {
  if (request.candidates != "auto") return request.candidates;
  return !request.from.empty() && model.node_count() > 0 ? "nodes" : "locations";
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
  if (!request.from.empty() && request.max_rtt_ms)
    workload.max_rtt_ms[request.from] = *request.max_rtt_ms;
  workload.expected_runtime = request.runtime;
  ScoringOptions options;
  options.carbon_weight = request.carbon_weight;
  options.latency_weight = request.latency_weight;
  options.now = now;
  return ScoreCandidates(model, CandidatesOf(model, request), workload, options);
}

absl::StatusOr<absl::Time> ParseDeadline(const std::string& text, absl::Time now) {
  absl::string_view rest = text;
  absl::Duration relative;
  if (absl::ConsumePrefix(&rest, "+") && absl::ParseDuration(rest, &relative)) {
    if (relative <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--deadline \"", text, "\" must be in the future, e.g. +12h"));
    }
    return now + relative;
  }
  absl::Time when;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &when, &error)) return when;
  return absl::InvalidArgumentError(absl::StrCat(
      "--deadline \"", text, "\" is neither RFC 3339 (2026-11-23T06:00:00Z) nor relative (+12h)"));
}

// "now", or "in 2h30m" (whole seconds).
std::string InText(absl::Duration d) {
  d = absl::Trunc(d, absl::Seconds(1));
  return d <= absl::ZeroDuration() ? "now" : absl::StrCat("in ", absl::FormatDuration(d));
}

std::string Utc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

}  // namespace

int RankCommand(const RankRequest& request, net::HttpClient& http, Clock& clock, std::ostream& out,
                std::ostream& err) {
  std::shared_ptr<const PlacementModel> model = Load(request.sources, http, clock, err);
  if (model == nullptr) return 1;
  RankRequest resolved = request;
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
  out << (request.format == "json" ? RankingJson(scored) : RankingTable(scored));
  const bool any = std::any_of(scored.begin(), scored.end(),
                               [](const ScoredCandidate& s) { return s.feasible; });
  return any ? 0 : 3;
}

int ExplainCommand(const RankRequest& request, const std::string& name, net::HttpClient& http,
                   Clock& clock, std::ostream& out, std::ostream& err) {
  std::shared_ptr<const PlacementModel> model = Load(request.sources, http, clock, err);
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
  out << canonical << " is a " << all.candidates.substr(0, all.candidates.size() - 1) << "\n";
  std::vector<ScoredCandidate> scored = Score(*model, all, clock.Now());
  if (std::none_of(scored.begin(), scored.end(),
                   [&](const ScoredCandidate& s) { return s.name == canonical; })) {
    RankRequest with_name = all;
    with_name.only = {canonical};
    std::vector<ScoredCandidate> extra = Score(*model, with_name, clock.Now());
    scored.insert(scored.end(), extra.begin(), extra.end());
  }
  out << Explanation(scored, canonical);
  auto it = std::find_if(scored.begin(), scored.end(),
                         [&](const ScoredCandidate& s) { return s.name == canonical; });
  return it != scored.end() && it->feasible ? 0 : 3;
}

int WindowCommand(const WindowRequest& request, net::HttpClient& http, Clock& clock,
                  std::ostream& out, std::ostream& err) {
  const absl::Time now = clock.Now();
  absl::StatusOr<absl::Time> deadline = ParseDeadline(request.deadline, now);
  if (!deadline.ok()) {
    err << "scheduler-lite: " << deadline.status().message() << "\n";
    return 2;
  }
  if (*deadline < now + request.duration) {  // before asking the collector anything
    err << "scheduler-lite: --deadline " << Utc(*deadline) << " leaves no room for a "
        << absl::FormatDuration(request.duration) << " run from now (" << Utc(now) << ")\n";
    return 2;
  }
  absl::StatusOr<std::vector<ForecastPoint>> points =
      FetchForecast(request.collector, request.location, http);
  if (!points.ok()) {
    err << "scheduler-lite: " << points.status().message() << "\n";
    // A location the collector does not poll is the user's mistake (2); an
    // unreachable collector is not (1).
    return points.status().code() == absl::StatusCode::kNotFound ? 2 : 1;
  }
  absl::StatusOr<BestWindow> best = FindBestWindow(*points, now, request.duration, *deadline);
  if (!best.ok()) {
    err << "scheduler-lite: " << best.status().message() << "\n";
    return best.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 3;
  }
  if (request.format == "json") {
    auto rounded = [](std::optional<double> x, double scale) {
      return x ? nlohmann::ordered_json(std::round(*x * scale) / scale) : nlohmann::ordered_json();
    };
    nlohmann::ordered_json answer = {
        {"location", request.location},
        {"start", Utc(best->start)},
        {"end", Utc(best->start + request.duration)},
        {"mean_grams_per_kwh", rounded(best->mean_grams_per_kwh, 1e3)},
        {"mean_if_started_now", rounded(best->mean_if_started_now, 1e3)},
        {"saving_fraction", rounded(best->saving_fraction, 1e4)}};
    out << answer.dump() << "\n";
    return 0;
  }
  out << absl::StrFormat("best start for %s in %s before %s: %s (%s)\n",
                         absl::FormatDuration(request.duration), request.location, Utc(*deadline),
                         Utc(best->start), InText(best->start - now));
  out << absl::StrFormat("  expected mean intensity: %.2f gCO2eq/kWh\n", best->mean_grams_per_kwh);
  if (best->mean_if_started_now) {
    out << absl::StrFormat("  starting now instead:    %.2f gCO2eq/kWh\n",
                           *best->mean_if_started_now);
  }
  if (best->saving_fraction)
    out << absl::StrFormat("  saving: %.1f %%\n", *best->saving_fraction * 100);
  return 0;
}

int KarmadaCommand(const KarmadaRequest& request, net::HttpClient& http, Clock& clock,
                   std::ostream& out, std::ostream& err) {
  absl::StatusOr<std::string> text = ReadFileToString(request.policy_file, "policy file");
  if (!text.ok()) {
    err << "scheduler-lite: " << text.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<KarmadaPolicy> policy = ParseKarmadaPolicy(*text, request.policy_file);
  if (!policy.ok()) {
    err << "scheduler-lite: " << policy.status().message() << "\n";
    return 2;
  }
  std::shared_ptr<const PlacementModel> model = Load(request.sources, http, clock, err);
  if (model == nullptr) return 1;
  Workload workload;
  workload.expected_runtime = request.runtime;
  ScoringOptions options;
  options.now = clock.Now();
  const std::vector<ScoredCandidate> scored =
      ScoreCandidates(*model, policy->clusters, workload, options);
  const KarmadaPatch patch = MakeKarmadaPatch(*policy, scored, options.now);
  out << patch.yaml;
  if (patch.cluster_names.empty()) return 3;
  if (!request.apply) return 0;
  const absl::Status patched =
      RunProgram("kubectl", {"patch", "propagationpolicy", policy->name, "-n",
                             policy->namespace_name, "--type", "merge", "-p", patch.json});
  if (!patched.ok()) {
    err << "scheduler-lite: " << patched.message() << "\n";
    return 1;
  }
  return 0;
}

int ServeCommand(const ServeRequest& request, net::HttpClient& http, Clock& clock,
                 absl::Notification& stop, std::ostream& err) {
  net::WebConfig web;  // read first: a mistake in it is a usage error, before any source is asked
  if (!request.web_config_file.empty()) {
    absl::StatusOr<net::WebConfig> loaded = net::LoadWebConfig(request.web_config_file);
    if (!loaded.ok()) {
      err << "scheduler-lite: --web.config.file: " << loaded.status().message() << "\n";
      return 2;
    }
    web = *std::move(loaded);
  }
  ModelStore models;
  auto refresh = [&] {
    LoadedModel loaded = LoadModel(request.sources, http, clock.Now());
    for (const absl::Status& error : loaded.errors)
      err << "scheduler-lite: warning: " << error.message() << "\n";
    if (loaded.sources_read > 0) models.Set(loaded.model);
  };
  refresh();
  TuneAllocatorForLargeRequests();
  auto registry = std::make_shared<prometheus::Registry>();
  ScoringOptions options;
  options.carbon_weight = request.carbon_weight;
  options.latency_weight = request.latency_weight;
  ExtenderService service(models, options, clock, *registry);
  net::HttpServerOptions server_options;
  server_options.listen_address = request.listen;
  server_options.routes = service.Routes(registry);
  server_options.max_body_bytes = request.max_body_bytes;
  server_options.threads = request.threads;
  net::ApplyWebConfig(web, server_options);
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) {
    err << "scheduler-lite: " << server.status().message() << "\n";
    return 1;
  }
  err << "scheduler-lite: serving the kube-scheduler extender on "
      << (web.tls.has_value() ? "https" : "http") << "://"
      << request.listen.substr(0, request.listen.rfind(':')) << ":" << (*server)->port()
      << " (POST /filter, /prioritize; GET /healthz, /metrics)" << std::endl;
  while (!clock.WaitUntil(clock.Now() + request.refresh, stop)) refresh();
  return 0;
}

}  // namespace carbonroute::scheduler_lite
