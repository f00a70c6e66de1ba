// The collector's YAML configuration (config/load_collector_config.h).
#include "config/load_collector_config.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)carbonroute::ParseCollectorConfig(carbonroute::fuzz::Text(data, size), "fuzz.yaml");
  return 0;
}
