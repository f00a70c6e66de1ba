// File: test/testing/shell.h
//
// Runs a shell command line (popen) and collects its output and exit code,
// for tests of the binaries as a user runs them.
#ifndef CARBONROUTE_TEST_TESTING_SHELL_H_
#define CARBONROUTE_TEST_TESTING_SHELL_H_

#include <string>

namespace carbonroute::testing {

struct ShellRun {
  int exit_code = -1;  // -1: killed by a signal, or the shell could not start
  std::string output;  // stdout (and stderr when the command line redirects it)
};

// `command` runs under /bin/sh; add " 2>&1" to collect stderr too.
ShellRun Shell(const std::string& command);

// The node_modules folder holding the npm tools scripts/npm/package-lock.json
// pins (scripts/lib/npm_tools.sh installs them once per lockfile, outside the
// clone), for `NODE_PATH=`; "" if they could not be installed. `who` names
// the caller in npm_tools' messages.
std::string NpmTools(const std::string& who);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_SHELL_H_
