// File: ledger/power_model.h
//
// A workload's power drawn from its resource requests, for the ledger when
// nothing measures its energy (no Kepler or DCGM series): the `model` energy
// source.
//
//   watts = cpu_cores × watts_per_cpu + memory_bytes / 1e9 × watts_per_gb
//           + gpus × watts_per_gpu
//
// Default coefficients, each settable (scheduler-lite's --watts-per-cpu,
// --watts-per-gb, --watts-per-gpu):
//   - 2.12 W per requested CPU core: Cloud Carbon Footprint's methodology
//     (https://www.cloudcarbonfootprint.org/docs/methodology, "Compute"):
//     min + utilisation × (max − min) with its AWS averages, min 0.74 W and
//     max 3.5 W per vCPU, at the 50 % utilisation it assumes when none is known;
//   - 0.392 W per GB of requested memory: the same methodology's memory
//     coefficient (0.392 Wh per GB-hour);
//   - 250 W per requested GPU: the Compute Gardener scheduler's dry-run model
//     (https://github.com/elevated-systems/compute-gardener-scheduler,
//     pkg/computegardener/eval/evaluator.go).
// A model, not a measurement: a Pod that requests 2 cores and uses 0.1 is
// priced at 2. docs/savings.md says so beside every figure it gives.
//
// Thread safety: values and pure functions.
#ifndef CARBONROUTE_LEDGER_POWER_MODEL_H_
#define CARBONROUTE_LEDGER_POWER_MODEL_H_

#include "absl/time/time.h"
#include "kube/pod_requests.h"

namespace carbonroute::ledger {

struct PowerModel {
  double watts_per_cpu = 2.12;
  double watts_per_gb = 0.392;
  double watts_per_gpu = 250;

  // The power `requests` draw, W.
  double Watts(const kube::PodRequests& requests) const;
  // The energy of `replicas` replicas over `interval`, J.
  double Joules(const kube::PodRequests& requests, double replicas, absl::Duration interval) const;
};

}  // namespace carbonroute::ledger

#endif  // CARBONROUTE_LEDGER_POWER_MODEL_H_
