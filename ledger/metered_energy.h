// File: ledger/metered_energy.h
//
// A Pod's energy as meters measured it, for the ledger's `kepler` and `dcgm`
// energy sources: read through --prometheus from what the shipped emissions
// recording rules (deploy/prometheus/carbonroute-emissions.yaml, docs/metrics.md
// "Emissions per workload") record per workload and minute,
//
//   node_namespace_pod_container:carbonroute_workload_energy_joules:increase1m
//     {namespace, pod, container, node, meter, component}   joules
//
// so the ledger and the rules price one and the same energy. The rules read
// (their file names each source):
//   meter="kepler", component="total"  Kepler 0.7 to 0.9: kepler_container_joules_total
//                                      (package, DRAM, GPU and other; both modes);
//   meter="kepler", component="cpu"    Kepler ≥ 0.10 (the rewrite):
//                                      kepler_container_cpu_joules_total{zone="package"},
//                                      named through kepler_pod_cpu_joules_total;
//   meter="kepler", component="gpu"    Kepler ≥ 0.10: kepler_container_gpu_joules_total;
//   meter="dcgm",   component="gpu"    NVIDIA's DCGM exporter:
//                                      DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ).
//
// MeteredEnergyQuery: the sum of a window's minutes, per Pod, Node, meter and
// component, evaluated at the window's end. Each minute's sample carries the
// time its rule ran, so windows that follow one another count every minute
// once, and their sum is the rules' own total. (Prometheus 2's range selector
// includes its start, 3's does not: the range is the window less 1 ms, so
// both read (from, to] to the millisecond.)
//
// CombineMeteredEnergy: per Pod, one figure per source, never a GPU twice
// (Kepler's and DCGM's measure the same GPUs): Kepler's "total" when present,
// alone (it includes the GPU); else Kepler's "cpu" (source kepler) and the GPU
// from DCGM (source dcgm) when present, else Kepler's "gpu" (kepler). A
// negative or non-finite value is left out (a counter reset seen badly).
// The Nodes with any measured Pod are the metered Nodes: a Pod there that a
// window has no minute of is not yet measured, rather than unmeasurable.
//
// For one run of a workload (scheduler-lite hold): MeteredRunQuery sums the
// minutes of its Pods (`pod_pattern`, a PromQL regular expression: RunPods)
// over its run, and TotalBySource adds its Pods' figures up per source.
// A minute is recorded up to a rule interval after it ended: read a run
// kMeteredRunLag after its end.
//
// MeterWindow: the windows one ledger reads, each from the end of the last
// one read; a window longer than `longest` (Prometheus was unreachable for
// that long) is not read but restarted, as the ledgers skip such a gap.
//
// Thread safety: values and pure functions; a MeterWindow belongs to one thread.
#ifndef CARBONROUTE_LEDGER_METERED_ENERGY_H_
#define CARBONROUTE_LEDGER_METERED_ENERGY_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/metric_labels.h"
#include "ledger/ledger.h"

namespace carbonroute::ledger {

// The rules' per-workload energy (joules per minute), as recorded.
inline constexpr char kWorkloadEnergyRecord[] =
    "node_namespace_pod_container:carbonroute_workload_energy_joules:increase1m";

// The PromQL for the window (to − window, to], evaluated at `to`.
std::string MeteredEnergyQuery(absl::Duration window);

// One answer sample of MeteredEnergyQuery: its labels and value.
struct MeteredSeries {
  std::string namespace_name, pod, node, meter, component;
  double joules = 0;
};

struct PodEnergy {
  double joules = 0;
  EnergySource source = EnergySource::kKepler;
};

// What one window measured.
struct MeteredPods {
  // {namespace, Pod name} → its energy by source (one or two entries).
  std::map<std::pair<std::string, std::string>, std::vector<PodEnergy>> pods;
  std::set<std::string> nodes;  // the Nodes any of them ran on
};

MeteredPods CombineMeteredEnergy(const std::vector<MeteredSeries>& series);
// The same from a query's answer: any sample type with `Label(name)` (the
// label's value, "" when absent) and `value` (model_sources::Sample).
template <typename Sample>
MeteredPods CombineMeteredSamples(const std::vector<Sample>& samples) {
  std::vector<MeteredSeries> series;
  series.reserve(samples.size());
  for (const Sample& sample : samples) {
    series.push_back({sample.Label(metric_labels::kNamespace), sample.Label(metric_labels::kPod),
                      sample.Label(metric_labels::kNode), sample.Label(metric_labels::kMeter),
                      sample.Label(metric_labels::kComponent), sample.value});
  }
  return CombineMeteredEnergy(series);
}

// The rules' interval (one minute) and one more for the scrape behind it.
inline constexpr absl::Duration kMeteredRunLag = absl::Minutes(2);

// The Pods named `names`, as a PromQL (RE2) regular expression.
std::string NamedPods(const std::set<std::string>& names);
// The Pods of a Job named `name` (`<name>-<5 characters>`, and an indexed
// Job's `<name>-<index>-<5 characters>`: the names the Job controller gives),
// or the one Pod `name`; as a PromQL (RE2) regular expression.
std::string RunPods(bool job, const std::string& name);
// The minutes of `namespace_name`'s Pods matching `pod_pattern` recorded in
// (to − window, to], evaluated at `to`.
std::string MeteredRunQuery(const std::string& namespace_name, const std::string& pod_pattern,
                            absl::Duration window);
// Every Pod's energy added up per source (kepler first, then dcgm).
std::vector<PodEnergy> TotalBySource(const MeteredPods& metered);
// Adds `more` to `total`, per source (a source new to `total` goes last).
void AddBySource(std::vector<PodEnergy>& total, const std::vector<PodEnergy>& more);

// What the meters measured of `namespace_name`'s Pods matching `pod_pattern`
// (RunPods, NamedPods) in [from, to], per source (TotalBySource); empty when
// nothing measured them; an error when Prometheus could not be read.
// (model_sources/measured_energy.h PrometheusPodsMeter: MeteredRunQuery,
// evaluated kMeteredRunLag after `to`.)
using PodsMeter = std::function<absl::StatusOr<std::vector<PodEnergy>>(
    const std::string& namespace_name, const std::string& pod_pattern, absl::Time from,
    absl::Time to)>;

class MeterWindow {
 public:
  MeterWindow(absl::Time started, absl::Duration longest) : from_(started), longest_(longest) {}
  // The window to read at `now`, or nullopt: empty (under a millisecond) or
  // longer than `longest` (then the next one starts at `now`).
  std::optional<absl::Duration> Next(absl::Time now);
  // The window up to `now` was read: the next one starts there.
  void Read(absl::Time now) { from_ = now; }

 private:
  absl::Time from_;
  const absl::Duration longest_;
};

}  // namespace carbonroute::ledger

#endif  // CARBONROUTE_LEDGER_METERED_ENERGY_H_
