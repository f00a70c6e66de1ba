// The Prometheus answers the savings ledger reads: a report query's vector as
// `report` builds its rows and totals from it (every query kind, both
// groupings), and a metered-energy answer (Kepler, DCGM) as the booking
// controllers combine it per Pod.
#include "ledger/ledger_report.h"
#include "ledger/metered_energy.h"
#include "model_sources/metrics_source.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute;  // NOLINT: fuzz target
  std::vector<model_sources::Sample> samples;
  if (!model_sources::ParsePrometheusVector(fuzz::Text(data, size), samples).ok()) return 0;
  (void)ledger::CombineMeteredSamples(samples);
  for (const char* group : {"namespace", "controller"}) {
    std::vector<ledger::LedgerIncrease> increases;
    for (ledger::LedgerQuery query : ledger::kLedgerQueries) {
      for (const model_sources::Sample& sample : samples) {
        increases.push_back({query, sample.labels, sample.value});
      }
    }
    (void)ledger::BuildLedgerReport(increases, group);
  }
  return 0;
}
