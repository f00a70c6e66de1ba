#include "base/run_program.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

namespace carbonroute {

absl::StatusOr<std::string> RunProgramOutput(
    const std::string& program, const std::vector<std::string>& arguments,
    const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  // The inherited environment, less the names `environment` sets, then those.
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (std::none_of(environment.begin(), environment.end(),
                     [&](const auto& given) { return given.first == name; })) {
      env.push_back(text);
    }
  }
  for (const auto& [name, value] : environment) env.push_back(absl::StrCat(name, "=", value));
  std::vector<char*> envp;
  for (std::string& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return absl::InternalError("cannot make a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, program.c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return absl::NotFoundError(
        absl::StrCat("cannot run ", program, " (is it on PATH?): ", std::strerror(spawned)));
  }
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n > 0) {
      output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return absl::InternalError(absl::StrCat("waiting for ", program, " failed"));
  }
  if (WIFSIGNALED(status)) {
    return absl::UnknownError(absl::StrCat(program, " was killed by signal ", WTERMSIG(status)));
  }
  if (WEXITSTATUS(status) != 0) {  // its stdout is not repeated: it may hold a secret
    return absl::UnknownError(absl::StrCat(program, " exited with ", WEXITSTATUS(status)));
  }
  return output;
}

}  // namespace carbonroute
