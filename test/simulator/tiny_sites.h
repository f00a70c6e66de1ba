// File: test/simulator/tiny_sites.h
//
// The simulator tests' hand-computable world: three sites, four hours. A is
// steady at 100; B is clean (10) for two hours, then dirty (300); C is steady
// at 50. RTTs: A–B 20 ms, B–C 30 ms, A–C 40 ms (a 30 ms limit excludes it).
#ifndef CARBONROUTE_TEST_SIMULATOR_TINY_SITES_H_
#define CARBONROUTE_TEST_SIMULATOR_TINY_SITES_H_

#include <gtest/gtest.h>

#include <utility>

#include "contract/intensity_trace.h"
#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"
#include "simulator/simulation_sites.h"

namespace carbonroute::simulator {

inline constexpr char kTinyTrace[] =
    "datetime,A,B,C\n"
    "2022-01-01T00:00:00Z,100,10,50\n"
    "2022-01-01T01:00:00Z,100,10,50\n"
    "2022-01-01T02:00:00Z,100,300,50\n"
    "2022-01-01T03:00:00Z,100,300,50\n";
inline constexpr char kTinyZones[] = "gcp_region,zone\na1,A\nb1,B\nc1,C\n";
inline constexpr char kTinyMatrix[] =
    "sending_region,receiving_region,milliseconds\n"
    "a1,b1,20\nb1,a1,20\nb1,c1,30\nc1,b1,30\na1,c1,40\nc1,a1,40\n";

struct Tiny {
  IntensityTrace trace;
  SiteTopology topology;
};

inline Tiny MakeTiny() {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Parse(kTinyTrace, "tiny.csv");
  EXPECT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SiteTopology> topology =
      BuildSiteTopology(*ParseRegionLocationsCsv(kTinyZones, "zones.csv"),
                        *ParseRttMatrixCsv(kTinyMatrix, "matrix.csv"), *trace);
  EXPECT_TRUE(topology.ok()) << topology.status();
  return {*std::move(trace), *std::move(topology)};
}

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_TEST_SIMULATOR_TINY_SITES_H_
