// A Prometheus instant-query answer (scheduler-lite's --prometheus source).
#include "model_sources/metrics_source.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<carbonroute::model_sources::Sample> samples;
  (void)carbonroute::model_sources::ParsePrometheusVector(carbonroute::fuzz::Text(data, size),
                                                          samples);
  return 0;
}
