// File: test/testing/build_paths.h
//
// Where the tests find the source tree and the binaries under test. The paths
// are compiled into build_paths.cc alone, so every other test object is the
// same in any clone and ccache (scripts/lib/ccache.sh) reuses it across clones.
#ifndef CARBONROUTE_TEST_TESTING_BUILD_PATHS_H_
#define CARBONROUTE_TEST_TESTING_BUILD_PATHS_H_

namespace carbonroute::testing {

const char* SourceDir();            // the repository root of this build
const char* CollectorBinary();      // the built carbonroute-collector
const char* SchedulerLiteBinary();  // the built scheduler-lite

}  // namespace carbonroute::testing

#define CARBONROUTE_SOURCE_DIR (::carbonroute::testing::SourceDir())
#define CARBONROUTE_COLLECTOR_BINARY (::carbonroute::testing::CollectorBinary())
#define CARBONROUTE_SCHEDULER_LITE_BINARY (::carbonroute::testing::SchedulerLiteBinary())

#endif  // CARBONROUTE_TEST_TESTING_BUILD_PATHS_H_
