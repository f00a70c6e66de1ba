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
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace carbonroute {

// `arguments` excludes the program itself.
absl::Status RunProgram(const std::string& program, const std::vector<std::string>& arguments);

// Runs `program` (on PATH, or a path) with this process's environment plus
// `environment` (a name given there replaces the inherited one), stdin from
// /dev/null and stderr where this process's goes, and answers what it wrote to
// stdout (a credential plugin's answer, kube/exec_credential.h). The same
// errors as RunProgram (never quoting stdout, which may hold a secret).
absl::StatusOr<std::string> RunProgramOutput(
    const std::string& program, const std::vector<std::string>& arguments,
    const std::vector<std::pair<std::string, std::string>>& environment);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_RUN_PROGRAM_H_
