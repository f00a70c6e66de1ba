// File: exporter/process_metrics.h
//
// The metrics every Prometheus exporter has, for both servers:
//   - the standard process metrics, as the official client libraries export
//     them (https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics):
//     process_cpu_seconds_total, process_resident_memory_bytes,
//     process_virtual_memory_bytes, process_open_fds, process_max_fds,
//     process_start_time_seconds; read from /proc/self at each scrape
//     (proc(5): stat fields 14–15 utime/stime and 22 starttime in clock ticks,
//     23 vsize in bytes, 24 rss in pages; /proc/self/fd; RLIMIT_NOFILE);
//   - carbonroute_build_info{version, revision, branch, compiler} = 1
//     (base/build_info.h).
// A value that cannot be read is left out of that scrape, never set to 0.
//
// MetricsPageHandler (exporter/metrics_page.h) adds both to every page.
// Thread safety: Collect() may run concurrently (it only reads /proc).
#ifndef CARBONROUTE_EXPORTER_PROCESS_METRICS_H_
#define CARBONROUTE_EXPORTER_PROCESS_METRICS_H_

#include <memory>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/registry.h"

namespace carbonroute::exporter {

class ProcessMetrics final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

// Registers carbonroute_build_info with `registry` (once per registry).
void AddBuildInfo(prometheus::Registry& registry);

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_PROCESS_METRICS_H_
