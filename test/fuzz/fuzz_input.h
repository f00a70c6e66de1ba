// File: test/fuzz/fuzz_input.h
//
// The fuzz targets' one helper: libFuzzer's bytes as the string_view every
// carbonroute parser takes.
#ifndef CARBONROUTE_TEST_FUZZ_FUZZ_INPUT_H_
#define CARBONROUTE_TEST_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace carbonroute::fuzz {

inline absl::string_view Text(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace carbonroute::fuzz

#endif  // CARBONROUTE_TEST_FUZZ_FUZZ_INPUT_H_
