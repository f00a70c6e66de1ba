// File: base/run_program.h
//
// Runs a program found on PATH with the given arguments and waits for it:
// kubectl for `karmada --apply`, gnuplot for `simulate --plot`. Its output
// goes where scheduler-lite's goes.
//
// Errors: kNotFound when the program cannot be started (not on PATH);
// kUnknown "<program> <first argument> exited with N" (or "was killed by signal N").
// Thread safety: safe to call concurrently.
#ifndef CARBONROUTE_BASE_RUN_PROGRAM_H_
#define CARBONROUTE_BASE_RUN_PROGRAM_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace carbonroute {

// `arguments` excludes the program itself.
absl::Status RunProgram(const std::string& program, const std::vector<std::string>& arguments);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_RUN_PROGRAM_H_
