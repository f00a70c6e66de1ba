#include "test/testing/build_paths.h"

namespace carbonroute::testing {

// Defined for this file only (test/CMakeLists.txt).
const char* SourceDir() { return CARBONROUTE_BUILD_SOURCE_DIR; }
const char* CollectorBinary() { return CARBONROUTE_BUILD_COLLECTOR_BINARY; }
const char* SchedulerLiteBinary() { return CARBONROUTE_BUILD_SCHEDULER_LITE_BINARY; }

}  // namespace carbonroute::testing
