// The karmada policy file (scheduler-lite karmada --policy).
#include "karmada/karmada_patch.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)carbonroute::karmada::ParseKarmadaPolicy(carbonroute::fuzz::Text(data, size), "fuzz.yaml");
  return 0;
}
