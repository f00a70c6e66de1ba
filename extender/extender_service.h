// File: extender/extender_service.h
//
// `scheduler-lite serve`: the kube-scheduler extender over HTTP.
//   POST /filter      ExtenderArgs → ExtenderFilterResult
//   POST /prioritize  ExtenderArgs → HostPriorityList (0–10)
//   GET  /healthz     200 once a model with at least one source is loaded, else 503;
//                     the text says when the model has no carbon reading at all (no
//                     carbon source answers: carbon scores are equal, latency decides)
//   GET  /metrics     requests by verb and code, latency histogram, decisions by location
// Requests are scored against the current model snapshot (ModelStore),
// refreshed by the caller on an interval — never per request. Without a model,
// or with one older than max_model_age, a pod's latency limits cannot be
// verified: /filter fails it on every node (FailedAndUnresolvableNodes, the
// reason naming the limit and the model's state), never passing it unchecked. Malformed
// input → HTTP 400 with an ExtenderFilterResult whose Error field names the
// mistake, for /filter and /prioritize alike (FilterErrorReply); a wrong
// method → 405. Never a crash.
//
// Ownership: borrows the store, the clock and the registry (all must outlive it).
// Thread safety: handlers run concurrently on the HTTP server's threads.
#ifndef CARBONROUTE_EXTENDER_EXTENDER_SERVICE_H_
#define CARBONROUTE_EXTENDER_EXTENDER_SERVICE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "base/clock.h"
#include "exporter/status_page.h"
#include "extender/pod_ledger.h"
#include "net/http_server.h"
#include "placement/placement_model.h"
#include "placement/scoring.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace carbonroute::extender {

// glibc malloc returns large blocks (≥128 KiB, e.g. the per-request candidate
// vectors of a 5000-node prioritize) to the kernel on every free, so each
// request pays page faults and TLB flushes again (seen in perf: ~40 % of a
// request). Raising the mmap and trim thresholds to 64 MiB keeps them in the
// heap. Called once by `serve` before it starts answering.
void TuneAllocatorForLargeRequests();

// The current model; swapped whole by the refresher (which pays for building
// it), read by every request.
class ModelStore {
 public:
  std::shared_ptr<const placement::PlacementModel> Get() const {
    absl::MutexLock lock(&mutex_);
    return model_;
  }
  // A null model clears the store.
  void Set(std::shared_ptr<const placement::PlacementModel> model) {
    absl::MutexLock lock(&mutex_);
    model_ = std::move(model);
  }

 private:
  mutable absl::Mutex mutex_;
  std::shared_ptr<const placement::PlacementModel> model_ ABSL_GUARDED_BY(mutex_);
};

// What /healthz and `serve`'s log say when the model has no carbon reading.
inline constexpr char kNoCarbonReason[] =
    "no carbon reading from any source (is the carbon role, or the Prometheus that scrapes it, "
    "up?): carbon scores are equal, placement follows latency limits and RTT alone";

class ExtenderService {
 public:
  // A model older than this cannot verify a latency limit (the model age alert fires at 5 min).
  static constexpr absl::Duration kDefaultMaxModelAge = absl::Minutes(10);

  // `max_model_age`: beyond it (and before the first model), a pod with a
  // latency limit fails the filter on every node, as a limit that cannot be
  // verified is not met; pods without limits pass, scored without carbon.
  ExtenderService(ModelStore& models, placement::ScoringOptions options, Clock& clock,
                  prometheus::Registry& registry,
                  absl::Duration max_model_age = kDefaultMaxModelAge);

  net::HttpServerResponse Filter(const net::HttpServerRequest& request);
  net::HttpServerResponse Prioritize(const net::HttpServerRequest& request);
  net::HttpServerResponse Health(const net::HttpServerRequest& request);
  // Records each scored Pod's candidates in `ledger` (null: none). Set before serving.
  void SetPodLedger(PodLedger* ledger) { pod_ledger_ = ledger; }
  // Shadow mode (serve --shadow): every Node passes /filter and /prioritize
  // scores every Node alike (0), so a scheduler profile can point at it
  // before carbonroute decides anything. Set before serving.
  void SetNeutral(bool neutral) { neutral_ = neutral; }
  // What /healthz's 503 says it waits for before the first model ("the
  // collector Pods ..."); called on the server's threads. Set before serving.
  void SetWaitingFor(std::function<std::string()> waiting_for) {
    waiting_for_ = std::move(waiting_for);
  }
  // Why serve is not ready although it has a model ("" when it is): shadow
  // mode's Pod watch failing, so that a trial that books nothing says so on
  // /healthz (503). Called on the server's threads. Set before serving.
  void SetUnreadyBecause(std::function<std::string()> unready_because) {
    unready_because_ = std::move(unready_because);
  }

  // What GET /api/v1/status answers (exporter/status_page.h): the whole RTT
  // matrix of the current model (every collector's row, measured and
  // declared) and its carbon reading per grid location (no forecast points:
  // the model keeps forecast means only). Empty before the first model.
  exporter::StatusSnapshot Status() const;

  // / (the status page: the matrix as a heatmap), /api/v1/status, /filter,
  // /prioritize, /healthz, and /metrics rendering `registry`.
  std::map<std::string, net::HttpHandler> Routes(std::shared_ptr<prometheus::Registry> registry);

 private:
  net::HttpServerResponse Handle(const std::string& verb, const net::HttpServerRequest& request);
  // The model's age and carbon locations, set by /metrics just before each page.
  void SetModelGauges();
  // Why a latency limit of `workload` cannot be verified with `model` (null: none yet).
  std::string UnverifiableReason(const placement::PlacementModel* model, absl::Time now,
                                 const placement::Workload& workload) const;

  ModelStore& models_;
  std::function<std::string()> waiting_for_;
  std::function<std::string()> unready_because_;
  PodLedger* pod_ledger_ = nullptr;
  bool neutral_ = false;
  const placement::ScoringOptions options_;
  Clock& clock_;
  const absl::Duration max_model_age_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& duration_;
  prometheus::Family<prometheus::Counter>& decisions_;
  prometheus::Gauge& model_age_;
  prometheus::Gauge& model_carbon_locations_;
};

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_EXTENDER_SERVICE_H_
