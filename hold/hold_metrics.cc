#include "hold/hold_metrics.h"

#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::hold {
namespace label = metric_labels;
namespace {

std::string Kind(HeldKind kind) { return std::string(KindName(kind)); }

// 1 min to 1 week: a hold lasts from nothing to the slack of the longest deadline.
prometheus::Histogram::BucketBoundaries DelayBuckets() {
  return {60, 300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800, 604800};
}

}  // namespace

HoldMetrics::HoldMetrics(prometheus::Registry& registry)
    : held_(prometheus::BuildGauge()
                .Name(metric_names::kHoldObjects)
                .Help("Jobs and Pods held now, waiting for a clean window")
                .Register(registry)),
      past_deadline_(prometheus::BuildGauge()
                         .Name(metric_names::kHoldPastDeadline)
                         .Help("held objects whose latest start has passed (should be 0)")
                         .Register(registry)),
      releases_(prometheus::BuildCounter()
                    .Name(metric_names::kHoldReleases)
                    .Help("releases by reason: window, deadline, no_forecast, invalid")
                    .Register(registry)),
      delay_(prometheus::BuildHistogram()
                 .Name(metric_names::kHoldDelay)
                 .Help("seconds from creation to release")
                 .Register(registry)),
      avoided_(prometheus::BuildSummary()
                   .Name(metric_names::kHoldIntensityAvoided)
                   .Help("per release, the forecast intensity of a run started at creation minus "
                         "that at release, gCO2eq/kWh")
                   .Register(registry)),
      common_(registry, metric_names::kHoldControllerMetrics,
              {"list", "patch", "lease", "forecast", "event"}) {
  for (HeldKind kind : {HeldKind::kJob, HeldKind::kPod}) {
    held_.Add({{label::kKind, Kind(kind)}});
    past_deadline_.Add({{label::kKind, Kind(kind)}});
    delay_.Add({{label::kKind, Kind(kind)}}, DelayBuckets());
    avoided_.Add({{label::kKind, Kind(kind)}}, prometheus::Summary::Quantiles{});
    for (ReleaseReason reason : kReleaseReasons) {
      releases_.Add(
          {{label::kKind, Kind(kind)}, {label::kReason, std::string(ReasonName(reason))}});
    }
  }
}

void HoldMetrics::SetHeld(HeldKind kind, int held, int past_deadline) {
  held_.Add({{label::kKind, Kind(kind)}}).Set(held);
  past_deadline_.Add({{label::kKind, Kind(kind)}}).Set(past_deadline);
}

void HoldMetrics::Released(HeldKind kind, ReleaseReason reason, absl::Duration delay,
                           std::optional<double> avoided_grams_per_kwh) {
  releases_.Add({{label::kKind, Kind(kind)}, {label::kReason, std::string(ReasonName(reason))}})
      .Increment();
  delay_.Add({{label::kKind, Kind(kind)}}, DelayBuckets())
      .Observe(std::max(0.0, absl::ToDoubleSeconds(delay)));
  if (avoided_grams_per_kwh) {
    avoided_.Add({{label::kKind, Kind(kind)}}, prometheus::Summary::Quantiles{})
        .Observe(*avoided_grams_per_kwh);
  }
}

}  // namespace carbonroute::hold
