// UK Carbon Intensity API bodies (national, regional, regionid, fw48h).
#include "providers/uk_carbon_intensity_parser.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view body = carbonroute::fuzz::Text(data, size);
  (void)carbonroute::providers::ParseUkCarbonIntensity(body, "national");
  (void)carbonroute::providers::ParseUkCarbonIntensity(body, "regionid/13");
  return 0;
}
