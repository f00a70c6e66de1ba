#include "test/testing/tun_echo_responder.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <queue>
#include <vector>

#include "prober/icmp_echo.h"
#include "test/testing/netns.h"

namespace carbonroute::testing {
absl::StatusOr<std::unique_ptr<TunEchoResponder>> TunEchoResponder::Create(
    const std::string& name, const std::string& gateway) {
  std::unique_ptr<TunEchoResponder> responder(new TunEchoResponder());
  responder->fd_ = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (responder->fd_ < 0)
    return absl::UnavailableError(std::string("/dev/net/tun: ") + std::strerror(errno));
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (ioctl(responder->fd_, TUNSETIFF, &request) != 0) {
    return absl::UnavailableError(std::string("TUNSETIFF: ") + std::strerror(errno));
  }
  if (!ConfigureInterface(name, gateway, 24)) {
    return absl::UnavailableError(std::string("cannot configure ") + name + ": " +
                                  std::strerror(errno));
  }
  responder->stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  responder->thread_ = std::thread([r = responder.get()] { r->Loop(); });
  return responder;
}

TunEchoResponder::~TunEchoResponder() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t ignored = write(stop_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (fd_ >= 0) close(fd_);
  if (stop_fd_ >= 0) close(stop_fd_);
}

void TunEchoResponder::Set(const std::string& address, Behaviour behaviour) {
  in_addr ip;
  inet_pton(AF_INET, address.c_str(), &ip);
  absl::MutexLock lock(&mutex_);
  behaviour_[ip.s_addr] = behaviour;
}

void TunEchoResponder::Loop() {
  struct Due {
    absl::Time at;
    std::vector<uint8_t> packet;
    bool operator>(const Due& other) const { return at > other.at; }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due;
  uint8_t buffer[2048];
  // The injected delay must be exact to test the prober's accuracy: no timer
  // slack (default 50 µs), and real-time priority (root in CI): a busy 2-core VM otherwise delays
  // the thread's wake-ups by milliseconds, which the prober would rightly measure.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_param priority{};
  priority.sched_priority = 10;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &priority);
  for (;;) {
    const absl::Time now = absl::Now();
    while (!due.empty() && due.top().at <= now) {
      [[maybe_unused]] ssize_t ignored =
          write(fd_, due.top().packet.data(), due.top().packet.size());
      due.pop();
    }
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    timespec timeout = absl::ToTimespec(
        due.empty() ? absl::Seconds(1) : std::max(due.top().at - now, absl::ZeroDuration()));
    if (ppoll(fds, 2, &timeout, nullptr) < 0) continue;
    if (fds[1].revents & POLLIN) return;
    if (!(fds[0].revents & POLLIN)) continue;
    for (;;) {
      const ssize_t n = read(fd_, buffer, sizeof(buffer));
      if (n <= 0) break;
      const absl::Time arrived = absl::Now();
      // IPv4 + ICMP echo request only.
      if (n < 28 || (buffer[0] >> 4) != 4 || buffer[9] != 1) continue;
      const std::size_t header = (buffer[0] & 0x0f) * 4u;
      if (static_cast<std::size_t>(n) < header + 8 || buffer[header] != 8) continue;
      uint32_t destination;
      std::memcpy(&destination, buffer + 16, 4);
      Behaviour b;
      uint64_t count;
      {
        absl::MutexLock lock(&mutex_);
        auto it = behaviour_.find(destination);
        if (it == behaviour_.end()) continue;
        b = it->second;
        count = counts_[destination]++;
      }
      if (b.silent) continue;
      if (std::floor((count + 1) * b.drop_fraction) > std::floor(count * b.drop_fraction)) continue;
      std::vector<uint8_t> reply(buffer, buffer + n);
      std::memcpy(reply.data() + 12, buffer + 16, 4);  // swap source and destination
      std::memcpy(reply.data() + 16, buffer + 12, 4);
      reply[8] = 64;  // TTL
      reply[10] = reply[11] = 0;
      const uint16_t ip_sum = prober::InternetChecksum(absl::MakeConstSpan(reply.data(), header));
      reply[10] = static_cast<uint8_t>(ip_sum >> 8);  // InternetChecksum: big-endian order
      reply[11] = static_cast<uint8_t>(ip_sum);
      reply[header] = 0;  // echo reply
      reply[header + 2] = reply[header + 3] = 0;
      const uint16_t icmp_sum = prober::InternetChecksum(
          absl::MakeConstSpan(reply.data() + header, reply.size() - header));
      reply[header + 2] = static_cast<uint8_t>(icmp_sum >> 8);
      reply[header + 3] = static_cast<uint8_t>(icmp_sum);
      due.push({arrived + b.delay, std::move(reply)});
    }
  }
}

}  // namespace carbonroute::testing
