// The CSV files operators give, all read by one RFC 4180 reader
// (contract/csv_rows.h): the RTT matrix, the region tables and the hourly
// carbon-intensity trace (contract/).
#include "contract/csv_rows.h"
#include "contract/intensity_trace.h"
#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view csv = carbonroute::fuzz::Text(data, size);
  (void)carbonroute::ReadCsvRecords(csv, "fuzz.csv");
  (void)carbonroute::ParseRttMatrixCsv(csv, "fuzz.csv");
  (void)carbonroute::ParseRegionCoordinatesCsv(csv, "fuzz.csv");
  (void)carbonroute::ParseRegionLocationsCsv(csv, "fuzz.csv");
  if (absl::StatusOr<carbonroute::IntensityTrace> trace =
          carbonroute::IntensityTrace::Parse(csv, "fuzz.csv");
      trace.ok()) {
    (void)trace->TraceHour(absl::FromUnixSeconds(1'800'000'000));
  }
  return 0;
}
