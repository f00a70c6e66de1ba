#include "test/testing/loopback_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>

namespace carbonroute::testing {

int ListenOnLoopback(const char* who, int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      // SOMAXCONN: a test thread starved of CPU for a while must not turn
      // connections (a collector's TCP probes) into dropped SYNs.
      listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    std::fprintf(stderr, "%s: cannot listen on 127.0.0.1: ", who);
    std::perror("");
    std::abort();
  }
  port = ntohs(address.sin_port);
  return fd;
}

}  // namespace carbonroute::testing
