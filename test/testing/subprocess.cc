#include "test/testing/subprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "base/data_files.h"

extern char** environ;

namespace carbonroute::testing {

Subprocess::Subprocess(std::vector<std::string> argv, std::string log_path)
    : log_path_(std::move(log_path)) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) == 0) pid_ = pid;
  posix_spawn_file_actions_destroy(&actions);
}

Subprocess::~Subprocess() {
  if (pid_ > 0) Terminate();
}

int Subprocess::Terminate() { return Stop(SIGTERM); }

int Subprocess::Kill() { return Stop(SIGKILL); }

int Subprocess::Stop(int signal) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void Subprocess::Signal(int signal) const {
  if (pid_ > 0) kill(pid_, signal);
}

std::string Subprocess::Log() const { return ReadFile(log_path_); }

bool WaitFor(const std::function<bool()>& ready, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (ready()) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return ready();
}

namespace {

// Whether 127.0.0.1:`port` can be bound now (closed again at once).
bool Bindable(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return bound;
}

// The first port of the kernel's ephemeral range (32768 when it cannot be read).
int EphemeralLow() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0, high = 0;
  return range >> low >> high && low > 2048 ? low : 32768;
}

}  // namespace

int FreeLoopbackPort() {
  static absl::Mutex mutex(absl::kConstInit);
  static std::set<int>* given = new std::set<int>();
  static std::mt19937 random(std::random_device{}());
  absl::MutexLock lock(&mutex);
  const int low = 10000, high = EphemeralLow() - 1;
  std::uniform_int_distribution<int> pick(low, std::max(low, high));
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = pick(random);
    if (given->contains(port) || !Bindable(port)) continue;
    given->insert(port);
    return port;
  }
  return 0;
}

int LoggedPort(const Subprocess& process, const std::string& marker, absl::Duration timeout) {
  int port = 0;
  WaitFor(
      [&] {
        const std::string log = process.Log();
        const std::size_t at = log.find(marker);
        if (at == std::string::npos) return false;
        const std::size_t host = log.find("127.0.0.1:", at + marker.size());
        if (host == std::string::npos) return false;
        port = std::atoi(log.c_str() + host + std::strlen("127.0.0.1:"));
        return port > 0;
      },
      timeout);
  return port;
}

std::string ReadFile(const std::string& path) {
  return ReadFileToString(path, "file").value_or("");
}

}  // namespace carbonroute::testing
