#include "base/run_program.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace carbonroute {

absl::Status RunProgram(const std::string& program, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, program.c_str(), nullptr, nullptr, args.data(), environ) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot run ", program, " (is it on PATH?)"));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return absl::InternalError(absl::StrCat("waiting for ", program, " failed"));
  }
  const std::string what = absl::StrCat(program, " ", arguments.empty() ? "" : arguments[0]);
  if (WIFSIGNALED(status)) {
    return absl::UnknownError(absl::StrCat(what, " was killed by signal ", WTERMSIG(status)));
  }
  if (WEXITSTATUS(status) != 0) {
    return absl::UnknownError(absl::StrCat(what, " exited with ", WEXITSTATUS(status)));
  }
  return absl::OkStatus();
}

}  // namespace carbonroute
