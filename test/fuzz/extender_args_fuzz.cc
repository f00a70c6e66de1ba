// kube-scheduler's ExtenderArgs, as POSTed to /filter and /prioritize.
#include "extender/extender_protocol.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)carbonroute::extender::ParseExtenderArgs(carbonroute::fuzz::Text(data, size));
  return 0;
}
