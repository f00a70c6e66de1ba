// File: test/testing/testdata.h
//
// Reads a file under test/<dir>/testdata/ (recorded provider bodies).
#ifndef CARBONROUTE_TEST_TESTING_TESTDATA_H_
#define CARBONROUTE_TEST_TESTING_TESTDATA_H_

#include <string>

#include "test/testing/build_paths.h"
#include "test/testing/subprocess.h"

namespace carbonroute::testing {

inline std::string ProviderTestdata(const std::string& name) {
  return ReadFile(std::string(CARBONROUTE_SOURCE_DIR) + "/test/providers/testdata/" + name);
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_TESTDATA_H_
