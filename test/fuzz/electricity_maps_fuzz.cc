// Electricity Maps v3 bodies: latest, history, forecast.
#include "providers/electricity_maps_parser.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute::providers;  // NOLINT: fuzz target
  const absl::string_view body = carbonroute::fuzz::Text(data, size);
  (void)ParseElectricityMapsLatest(body, "DE");
  (void)ParseElectricityMapsHistory(body, "DE");
  (void)ParseElectricityMapsForecast(body, "DE");
  return 0;
}
