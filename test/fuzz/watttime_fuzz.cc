// WattTime v3 bodies: signal-index/forecast, login, region-from-loc, my-access.
#include "providers/watttime_parser.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute::providers;  // NOLINT: fuzz target
  const absl::string_view body = carbonroute::fuzz::Text(data, size);
  (void)ParseWattTimeSignal(body, "CAISO_NORTH");
  (void)ParseWattTimeToken(body);
  (void)ParseWattTimeRegion(body);
  (void)ParseWattTimeAccess(body, "co2_moer");
  return 0;
}
