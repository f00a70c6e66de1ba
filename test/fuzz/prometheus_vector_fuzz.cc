// A Prometheus instant-query answer (scheduler-lite's --prometheus source).
#include "scheduler-lite/metrics_source.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<carbonroute::scheduler_lite::Sample> samples;
  (void)carbonroute::scheduler_lite::ParsePrometheusVector(carbonroute::fuzz::Text(data, size),
                                                           samples);
  return 0;
}
