#include "extender/extender_service.h"

#include <malloc.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "base/counted.h"
#include "contract/emissions_type.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"
#include "exporter/metrics_page.h"
#include "extender/extender_protocol.h"

namespace carbonroute::extender {

using placement::CompactScores;
using placement::FailureDetail;
using placement::PlacementModel;
using placement::ScoreCompact;
using placement::ScoringOptions;
namespace {

constexpr char kJson[] = "application/json";

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1};
}

}  // namespace

void TuneAllocatorForLargeRequests() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

ExtenderService::ExtenderService(ModelStore& models, ScoringOptions options, Clock& clock,
                                 prometheus::Registry& registry, absl::Duration max_model_age)
    : models_(models),
      options_(options),
      clock_(clock),
      max_model_age_(max_model_age),
      requests_(prometheus::BuildCounter()
                    .Name(metric_names::kExtenderRequests)
                    .Help("kube-scheduler extender requests, by verb and HTTP status.")
                    .Register(registry)),
      duration_(prometheus::BuildHistogram()
                    .Name(metric_names::kExtenderRequestDuration)
                    .Help("Server-side time to answer an extender request, seconds.")
                    .Register(registry)),
      decisions_(prometheus::BuildCounter()
                     .Name(metric_names::kSchedulerDecisions)
                     .Help("Prioritize answers, by the grid location of the top-scored candidate.")
                     .Register(registry)),
      model_age_(prometheus::BuildGauge()
                     .Name(metric_names::kSchedulerModelAge)
                     .Help("Seconds since the placement model was rebuilt from its sources.")
                     .Register(registry)
                     .Add({})),
      model_carbon_locations_(
          prometheus::BuildGauge()
              .Name(metric_names::kSchedulerModelCarbonLocations)
              .Help("Grid locations with a carbon reading in the placement model (0: carbon "
                    "scores are equal, latency decides).")
              .Register(registry)
              .Add({})) {}

void ExtenderService::SetModelGauges() {
  // As of this scrape, not of the last request (none may have come since).
  if (std::shared_ptr<const PlacementModel> model = models_.Get()) {
    model_age_.Set(absl::ToDoubleSeconds(clock_.Now() - model->built_at()));
    model_carbon_locations_.Set(static_cast<double>(model->Readings().size()));
  }
}

std::string ExtenderService::UnverifiableReason(const PlacementModel* model, absl::Time now,
                                                const placement::Workload& workload) const {
  const auto& [origin, limit] = *workload.max_rtt.begin();
  return absl::StrCat("latency limit delay_", origin, "=", absl::ToDoubleMilliseconds(limit),
                      "ms cannot be verified: ",
                      model == nullptr
                          ? "no placement model yet (no source could be read)"
                          : absl::StrCat("the placement model is ",
                                         absl::FormatDuration(absl::Trunc(now - model->built_at(),
                                                                          absl::Seconds(1))),
                                         " old (over ", absl::FormatDuration(max_model_age_),
                                         "): its sources cannot be read"));
}

net::HttpServerResponse ExtenderService::Handle(const std::string& verb,
                                                const net::HttpServerRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  net::HttpServerResponse response{200, kJson, ""};
  const bool filter = verb == "filter";
  if (request.method != "POST") {
    response = {405, "text/plain; charset=utf-8", absl::StrCat("/", verb, " takes POST\n")};
  } else if (absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(request.body); !args.ok()) {
    const std::string message(args.status().message());
    response = {400, kJson, FilterErrorReply(message)};
  } else {
    std::shared_ptr<const PlacementModel> model = models_.Get();
    ScoringOptions options = options_;
    options.now = clock_.Now();
    const bool usable = model && options.now - model->built_at() <= max_model_age_;
    CompactScores scores;
    if (neutral_) {  // shadow mode: every Node passes, every score alike
      scores.extender_scores.assign(args->candidates.size(), 0);
    } else if (usable) {
      scores = ScoreCompact(*model, args->candidates, args->workload, options,
                            filter ? FailureDetail::kReasons : FailureDetail::kScoresOnly);
    } else if (filter && !args->workload.max_rtt.empty()) {
      // A limit that cannot be verified is not met: fail closed, on every node.
      const std::string reason = UnverifiableReason(model.get(), options.now, args->workload);
      for (std::size_t i = 0; i < args->candidates.size(); ++i)
        scores.failures.emplace_back(i, reason);
    }
    if (pod_ledger_ != nullptr && usable &&
        (filter || !pod_ledger_->ScoredByFilter(args->pod.uid))) {
      // The candidates kube-scheduler offered: the Nodes that passed this filter, or this list
      // (unless its filter's are kept), counted per grid location id, then named.
      ScoredPod scored{.uid = args->pod.uid,
                       .namespace_name = args->pod.namespace_name,
                       .name = args->pod.name,
                       .scheduler_name = args->pod.scheduler_name.empty()
                                             ? kDefaultSchedulerName
                                             : args->pod.scheduler_name,
                       .from_filter = filter};
      std::vector<bool> failed(args->candidates.size(), false);
      for (const auto& [index, reason] : scores.failures) {
        if (index < failed.size()) failed[index] = true;
      }
      std::vector<int> per_location(model->location_count() + 1, 0);  // the last: unknown
      for (std::size_t i = 0; i < args->candidates.size(); ++i) {
        if (filter && failed[i]) continue;
        const uint32_t id = placement::ResolvedLocationId(*model, args->candidates[i]);
        ++per_location[id == PlacementModel::kNone ? model->location_count() : id];
      }
      for (uint32_t id = 0; id < per_location.size(); ++id) {
        if (per_location[id] == 0) continue;
        const bool known = id < model->location_count();
        scored.candidate_locations[known ? std::string(model->location(id)) : ""] =
            per_location[id];
      }
      pod_ledger_->Scored(std::move(scored), options.now);
    }
    if (filter) {
      response.body = FilterReply(*args, scores);
    } else {
      response.body = PrioritizeReply(*args, scores);
      if (scores.best)
        decisions_.Add({{metric_labels::kLocation, scores.best_location}}).Increment();
    }
  }
  requests_
      .Add({{metric_labels::kVerb, verb}, {metric_labels::kCode, std::to_string(response.status)}})
      .Increment();
  duration_.Add({{metric_labels::kVerb, verb}}, LatencyBuckets())
      .Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return response;
}

net::HttpServerResponse ExtenderService::Filter(const net::HttpServerRequest& request) {
  return Handle("filter", request);
}

net::HttpServerResponse ExtenderService::Prioritize(const net::HttpServerRequest& request) {
  return Handle("prioritize", request);
}

net::HttpServerResponse ExtenderService::Health(const net::HttpServerRequest&) {
  std::shared_ptr<const PlacementModel> model = models_.Get();
  if (model == nullptr) {
    return {503, "text/plain; charset=utf-8",
            waiting_for_ ? absl::StrCat("no model loaded yet: waiting for ", waiting_for_(), "\n")
                         : "no model loaded yet\n"};
  }
  if (const std::string why = unready_because_ ? unready_because_() : ""; !why.empty()) {
    return {503, "text/plain; charset=utf-8", absl::StrCat(why, "\n")};
  }
  std::string text = absl::StrCat("ok: ", Counted(model->Readings().size(), "location"), ", ",
                                  Counted(model->node_count(), "node"), ", ",
                                  Counted(model->row_count(), "RTT row"), "\n");
  if (model->Readings().empty()) {
    absl::StrAppend(&text, kNoCarbonReason, "\n");
  }
  return {200, "text/plain; charset=utf-8", text};
}

exporter::StatusSnapshot ExtenderService::Status() const {
  exporter::StatusSnapshot status;
  status.title = "scheduler-lite serve";
  status.generated_at = clock_.Now();
  status.links = {{"/metrics", "the metrics, Prometheus text format"},
                  {"/healthz", "200 once a model is loaded"},
                  {exporter::kStatusApiPath, "this page's data, JSON"}};
  std::shared_ptr<const PlacementModel> model = models_.Get();
  if (model == nullptr) return status;
  for (uint32_t row = 0; row < model->row_count(); ++row) {
    for (const PlacementModel::RowEntry& entry : model->RowEntries(row)) {
      exporter::StatusRtt& rtt = status.rtt.emplace_back();
      rtt.source = std::string(model->row_name(row));
      rtt.target = std::string(model->place_name(entry.target));
      rtt.method = std::string(RttMethodName(entry.entry.method));
      if (entry.entry.exporter != RttExporter::kCarbonroute) {
        rtt.exporter = std::string(RttExporterName(entry.entry.exporter));
      }
      rtt.rtt_ms = absl::ToDoubleMilliseconds(entry.entry.rtt);
    }
  }
  for (const auto& [location, carbon] : model->Readings()) {
    exporter::StatusCarbon& row = status.carbon.emplace_back();
    row.location = std::string(location);
    row.provider = carbon->provider;
    row.emissions_type = std::string(EmissionsTypeName(carbon->emissions_type));
    row.grams_per_kwh = carbon->grams_per_kwh;
    row.estimated = carbon->estimated;
    if (carbon->age.has_value()) row.age_seconds = absl::ToDoubleSeconds(*carbon->age);
    row.state = carbon->valid_to.has_value() && *carbon->valid_to < status.generated_at
                    ? "stale (past its validity)"
                    : "ok";
  }
  return status;
}

std::map<std::string, net::HttpHandler> ExtenderService::Routes(
    std::shared_ptr<prometheus::Registry> registry) {
  return {{"/", exporter::StatusPageHandler()},
          {exporter::kStatusApiPath, exporter::StatusApiHandler([this] { return Status(); })},
          {"/filter", [this](const net::HttpServerRequest& r) { return Filter(r); }},
          {"/prioritize", [this](const net::HttpServerRequest& r) { return Prioritize(r); }},
          {"/healthz", [this](const net::HttpServerRequest& r) { return Health(r); }},
          {"/metrics",
           exporter::MetricsPageHandler(std::move(registry), [this] { SetModelGauges(); })}};
}

}  // namespace carbonroute::extender
