// The Prometheus text exposition format (scheduler-lite's --metrics source).
#include "model_sources/exposition_parser.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)carbonroute::model_sources::ParseExposition(carbonroute::fuzz::Text(data, size));
  return 0;
}
