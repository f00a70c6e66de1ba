#include "test/testing/netns.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace carbonroute::testing {

bool SetPingGroupRange(const std::string& range) {
  // Net sysctls resolve to the opening thread's namespace.
  const int file = open("/proc/sys/net/ipv4/ping_group_range", O_WRONLY | O_CLOEXEC);
  if (file < 0) return false;
  const bool ok = write(file, range.data(), range.size()) == static_cast<ssize_t>(range.size());
  close(file);
  return ok;
}

bool ConfigureInterface(const std::string& name, const std::string& address, int prefix) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  bool ok = true;
  if (!address.empty()) {
    auto* in = reinterpret_cast<sockaddr_in*>(&request.ifr_addr);
    in->sin_family = AF_INET;
    inet_pton(AF_INET, address.c_str(), &in->sin_addr);
    ok = ok && ioctl(fd, SIOCSIFADDR, &request) == 0;
    in->sin_addr.s_addr = htonl(prefix == 0 ? 0 : ~0u << (32 - prefix));
    ok = ok && ioctl(fd, SIOCSIFNETMASK, &request) == 0;
  }
  ok = ok && ioctl(fd, SIOCGIFFLAGS, &request) == 0;
  request.ifr_flags |= IFF_UP | IFF_RUNNING;
  ok = ok && ioctl(fd, SIOCSIFFLAGS, &request) == 0;
  close(fd);
  return ok;
}

bool RunInNewNetworkNamespace(const std::function<void()>& body, std::string* error) {
  bool ok = true;
  std::thread thread([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      ok = false;
      *error = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
      return;
    }
    if (!ConfigureInterface("lo", "", 0)) {
      ok = false;
      *error = std::string("cannot bring lo up: ") + std::strerror(errno);
      return;
    }
    body();
  });
  thread.join();
  return ok;
}

}  // namespace carbonroute::testing
