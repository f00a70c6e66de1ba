// The web configuration file (--web.config.file of both servers). Referenced
// PEM files do not exist here: the YAML handling and the checks are fuzzed.
#include "net/web_config.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)carbonroute::net::ParseWebConfig(carbonroute::fuzz::Text(data, size),
                                         "/nonexistent/web.yml");
  return 0;
}
