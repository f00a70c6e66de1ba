#include "test/testing/shell.h"

#include <sys/wait.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "test/testing/build_paths.h"

namespace carbonroute::testing {

ShellRun Shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string NpmTools(const std::string& who) {
  const ShellRun run = Shell(absl::StrCat("bash -c 'source ", CARBONROUTE_SOURCE_DIR,
                                          "/scripts/lib/npm_tools.sh && npm_tools ", who, "'"));
  return run.exit_code == 0 ? std::string(absl::StripTrailingAsciiWhitespace(run.output)) : "";
}

}  // namespace carbonroute::testing
