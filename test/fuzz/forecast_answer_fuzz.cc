// The collector's forecast API answer, as `scheduler-lite window` decodes it.
#include "contract/forecast_api.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)carbonroute::forecast_api::DecodeAnswer(carbonroute::fuzz::Text(data, size));
  return 0;
}
