#include "prober/socket_probe_transport.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/icmp.h>
#include <netinet/icmp6.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/data_files.h"
#include "prober/icmp_echo.h"
#include "spdlog/spdlog.h"

namespace carbonroute::prober {
namespace {

absl::Time RealNow() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return absl::TimeFromTimespec(ts);
}

std::string ErrnoText(int error) { return std::strerror(error); }

// The kernel's RTT sample of a connected socket's handshake (tcp(7) TCP_INFO:
// tcpi_rtt, microseconds; after one sample it is that sample), or nullopt
// when it has none (refused, or a retransmitted SYN without timestamps).
std::optional<absl::Duration> HandshakeRtt(int fd) {
  tcp_info info{};
  socklen_t length = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 ||
      info.tcpi_state != TCP_ESTABLISHED || info.tcpi_rtt == 0) {
    return std::nullopt;
  }
  return absl::Microseconds(info.tcpi_rtt);
}

// The current net.ipv4.ping_group_range, for the start-up message.
std::string PingGroupRange() {
  absl::StatusOr<std::string> range =
      ReadFileToString("/proc/sys/net/ipv4/ping_group_range", "sysctl");
  if (!range.ok()) return "(unreadable)";
  std::string text(absl::StripAsciiWhitespace(*range));
  for (char& c : text) {
    if (c == '\t') c = ' ';
  }
  return text;
}

int OpenIcmp(int family, bool raw) {
  const int protocol =
      family == AF_INET ? static_cast<int>(IPPROTO_ICMP) : static_cast<int>(IPPROTO_ICMPV6);
  const int type = raw ? static_cast<int>(SOCK_RAW) : static_cast<int>(SOCK_DGRAM);
  const int fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
  if (fd < 0) return -1;
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
  // Raw sockets see every ICMP message the host receives, including other
  // hosts' echo requests and, on loopback, our own; pass only echo replies.
  if (raw && family == AF_INET6) {  // RFC 3542 §3.2
    icmp6_filter filter;
    ICMP6_FILTER_SETBLOCKALL(&filter);
    ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &filter);
    setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &filter, sizeof(filter));
  } else if (raw) {  // Linux raw(7) ICMP_FILTER: a set bit blocks that type
    icmp_filter filter{};
    filter.data = ~(1U << ICMP_ECHOREPLY);
    setsockopt(fd, SOL_RAW, ICMP_FILTER, &filter, sizeof(filter));
  }
  // Don't Fragment on requests (as `ping -M do`): a 24-byte echo never needs
  // fragmenting, and an IPv4 packet with DF needs no hashed IP ID (RFC 6864 §4.1),
  // which was a measurable share of the kernel's send path.
  if (family == AF_INET) {
    const int pmtu = IP_PMTUDISC_DO;
    setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
  }
  // Replies wait in the socket until the next tick drains it (see Wait): room
  // for a tick's worth at thousands of peers. Best effort, capped by net.core.rmem_max.
  const int receive_buffer = 1 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer));
  return fd;
}

void AddToEpoll(int epoll_fd, int fd, uint32_t events) {
  epoll_event event{};
  event.events = events;
  event.data.fd = fd;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

}  // namespace

void ProbeEndpoint::set_port(uint16_t port) {
  if (family() == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in*>(&address)->sin_port = htons(port);
  }
}

std::string ProbeEndpoint::ToString() const {
  char text[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    port = ntohs(in->sin_port);
    return protocol == ProbeProtocol::kTcp ? absl::StrCat(text, ":", port) : std::string(text);
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address);
  inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
  port = ntohs(in6->sin6_port);
  return protocol == ProbeProtocol::kTcp ? absl::StrCat("[", text, "]:", port) : std::string(text);
}

absl::StatusOr<std::unique_ptr<SocketProbeTransport>> SocketProbeTransport::Create(
    std::optional<IcmpMode> icmp_mode, uint16_t identifier) {
  std::unique_ptr<SocketProbeTransport> transport(new SocketProbeTransport());
  transport->identifier_ = identifier;
  transport->epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  transport->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (transport->epoll_fd_ < 0 || transport->wake_fd_ < 0) {
    return absl::InternalError(absl::StrCat("prober: epoll/eventfd: ", ErrnoText(errno)));
  }
  AddToEpoll(transport->epoll_fd_, transport->wake_fd_, EPOLLIN);
  if (!icmp_mode) {
    transport->icmp_description_ = "none (TCP probes only)";
    return transport;
  }
  // The ICMP sockets stay out of the epoll set: Wait() drains them when it
  // returns, so replies never wake the loop on their own.
  if (absl::Status opened = transport->OpenIcmpSockets(*icmp_mode); !opened.ok()) return opened;
  return transport;
}

absl::Status SocketProbeTransport::OpenIcmpSockets(IcmpMode mode) {
  const std::string range = PingGroupRange();
  const gid_t group = getegid();
  int datagram_error = 0;
  if (mode != IcmpMode::kRaw) {
    icmp4_fd_ = OpenIcmp(AF_INET, /*raw=*/false);
    datagram_error = errno;
    if (icmp4_fd_ >= 0) {
      icmp_description_ = absl::StrFormat(
          "datagram (unprivileged): net.ipv4.ping_group_range \"%s\" includes group %d", range,
          group);
    }
  }
  if (icmp4_fd_ < 0 && mode != IcmpMode::kDatagram) {
    icmp4_fd_ = OpenIcmp(AF_INET, /*raw=*/true);
    if (icmp4_fd_ >= 0) {
      raw_ = true;
      icmp_description_ = mode == IcmpMode::kRaw
                              ? std::string("raw (icmp_mode: raw; CAP_NET_RAW held)")
                              : absl::StrFormat(
                                    "raw (CAP_NET_RAW held): net.ipv4.ping_group_range "
                                    "\"%s\" excludes group %d, so no datagram socket",
                                    range, group);
    }
  }
  if (icmp4_fd_ < 0) {
    const int error = errno;
    return absl::PermissionDeniedError(absl::StrFormat(
        "cannot open an ICMP socket (%s): net.ipv4.ping_group_range is \"%s\" and group %d is "
        "outside it%s, "
        "and this process lacks CAP_NET_RAW for a raw socket (%s). Either widen the range, e.g. "
        "`sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"`, or grant CAP_NET_RAW (systemd: "
        "AmbientCapabilities=CAP_NET_RAW; Kubernetes: securityContext.capabilities.add: "
        "[NET_RAW]); "
        "or probe peers with protocol: tcp",
        mode == IcmpMode::kAuto ? "icmp_mode auto"
                                : (mode == IcmpMode::kRaw ? "icmp_mode raw" : "icmp_mode datagram"),
        range, group, datagram_error ? absl::StrCat(" (", ErrnoText(datagram_error), ")") : "",
        mode == IcmpMode::kDatagram ? "not tried: icmp_mode datagram" : ErrnoText(error)));
  }
  icmp6_fd_ = OpenIcmp(AF_INET6, raw_);
  if (icmp6_fd_ < 0) {
    spdlog::warn("prober: no ICMPv6 socket ({}); IPv6 peers cannot be probed with ICMP",
                 ErrnoText(errno));
  }
  return absl::OkStatus();
}

SocketProbeTransport::~SocketProbeTransport() {
  for (const auto& [fd, token] : connects_) close(fd);
  for (int fd : {epoll_fd_, wake_fd_, icmp4_fd_, icmp6_fd_}) {
    if (fd >= 0) close(fd);
  }
}

absl::StatusOr<absl::Time> SocketProbeTransport::Send(const ProbeEndpoint& to, uint64_t token) {
  return to.protocol == ProbeProtocol::kTcp ? Connect(to, token) : SendEcho(to, token);
}

absl::StatusOr<absl::Time> SocketProbeTransport::SendEcho(const ProbeEndpoint& to, uint64_t token) {
  const bool v6 = to.family() == AF_INET6;
  const int fd = v6 ? icmp6_fd_ : icmp4_fd_;
  if (fd < 0) return absl::UnavailableError("no ICMP socket for this address family");
  (v6 ? icmp6_used_ : icmp4_used_) = true;
  const std::array<uint8_t, kEchoRequestBytes> packet =
      BuildEchoRequest(v6 ? IpFamily::kV6 : IpFamily::kV4, identifier_, ++sequence_, token);
  // Port 0 whatever the endpoint says: datagram sockets take the port as the
  // echo identifier (left to the kernel), and raw IPv6 sockets reject one (EINVAL).
  ProbeEndpoint echo_to = to;
  echo_to.set_port(0);
  const absl::Time sent_at = RealNow();
  if (sendto(fd, packet.data(), packet.size(), 0,
             reinterpret_cast<const sockaddr*>(&echo_to.address), echo_to.length) < 0) {
    return absl::UnavailableError(absl::StrCat("sendto ", to.ToString(), ": ", ErrnoText(errno)));
  }
  return sent_at;
}

absl::StatusOr<absl::Time> SocketProbeTransport::Connect(const ProbeEndpoint& to, uint64_t token) {
  const int fd = socket(to.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("socket: ", ErrnoText(errno)));
  const linger abort_on_close{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close));
  const absl::Time sent_at = RealNow();
  if (connect(fd, reinterpret_cast<const sockaddr*>(&to.address), to.length) == 0 ||
      errno == ECONNREFUSED) {
    // Loopback can answer within connect().
    ready_.push_back({token, RealNow(), true, HandshakeRtt(fd)});
    close(fd);
    return sent_at;
  }
  if (errno != EINPROGRESS) {
    const int error = errno;
    close(fd);
    return absl::UnavailableError(absl::StrCat("connect ", to.ToString(), ": ", ErrnoText(error)));
  }
  AddToEpoll(epoll_fd_, fd, EPOLLOUT);
  connects_[fd] = token;
  connect_fds_[token] = fd;
  return sent_at;
}

void SocketProbeTransport::Cancel(uint64_t token) {
  auto it = connect_fds_.find(token);
  if (it == connect_fds_.end()) return;
  close(it->second);  // also leaves the epoll set
  connects_.erase(it->second);
  connect_fds_.erase(it);
}

void SocketProbeTransport::FinishConnect(int fd, std::vector<ProbeAnswer>& out) {
  const absl::Time now = RealNow();
  auto it = connects_.find(fd);
  if (it == connects_.end()) return;
  int error = 0;
  socklen_t length = sizeof(error);
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
  // Connected (SYN-ACK) or refused (RST): the peer answered. Anything else
  // (EHOSTUNREACH, ENETUNREACH, ETIMEDOUT) is a loss.
  out.push_back({it->second, now, error == 0 || error == ECONNREFUSED,
                 error == 0 ? HandshakeRtt(fd) : std::nullopt});
  connect_fds_.erase(it->second);
  connects_.erase(it);
  close(fd);
}

void SocketProbeTransport::ReadEchoReplies(int fd, bool v6, std::vector<ProbeAnswer>& out) const {
  // recvmmsg: a tick's replies in one system call rather than one each. Our
  // replies are 24 bytes of ICMP (+ up to 60 of IPv4 header on raw sockets);
  // a longer packet is someone else's and fails the parse when truncated.
  constexpr int kBatch = 32;
  constexpr std::size_t kPacketBytes = 128;
  uint8_t buffers[kBatch][kPacketBytes];
  alignas(cmsghdr) char controls[kBatch][CMSG_SPACE(sizeof(timespec))];
  iovec iovs[kBatch];
  mmsghdr messages[kBatch];
  for (;;) {
    for (int i = 0; i < kBatch; ++i) {
      iovs[i] = {buffers[i], kPacketBytes};
      messages[i].msg_hdr = {};
      messages[i].msg_hdr.msg_iov = &iovs[i];
      messages[i].msg_hdr.msg_iovlen = 1;
      messages[i].msg_hdr.msg_control = controls[i];
      messages[i].msg_hdr.msg_controllen = sizeof(controls[i]);
    }
    const int received = recvmmsg(fd, messages, kBatch, MSG_DONTWAIT, nullptr);
    if (received <= 0) return;  // EAGAIN: drained
    for (int i = 0; i < received; ++i) {
      msghdr& message = messages[i].msg_hdr;
      if (message.msg_flags & MSG_TRUNC) continue;
      absl::Time received_at = absl::InfinitePast();
      for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          timespec ts;
          std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
          received_at = absl::TimeFromTimespec(ts);
        }
      }
      if (received_at == absl::InfinitePast()) received_at = RealNow();
      const std::optional<EchoReply> reply =
          ParseEchoReply(v6 ? IpFamily::kV6 : IpFamily::kV4,
                         absl::MakeConstSpan(buffers[i], messages[i].msg_len), raw_ && !v6);
      if (!reply) continue;
      if (raw_ && reply->identifier != identifier_) continue;  // another process's ping
      out.push_back({reply->token, received_at, true});
    }
    if (received < kBatch) return;  // fewer than asked for: the queue is empty
  }
}

void SocketProbeTransport::Wait(absl::Time deadline, std::vector<ProbeAnswer>& answers) {
  answers.clear();
  answers.swap(ready_);
  timespec timeout{0, 0};
  if (answers.empty()) {
    const absl::Duration left = std::max(deadline - RealNow(), absl::ZeroDuration());
    timeout = absl::ToTimespec(std::min(left, absl::Hours(1)));
  }
  epoll_event events[64];
  const int n = epoll_pwait2(epoll_fd_, events, 64, &timeout, nullptr);
  for (int i = 0; i < n; ++i) {
    const int fd = events[i].data.fd;
    if (fd == wake_fd_) {
      uint64_t count;
      [[maybe_unused]] ssize_t ignored = read(wake_fd_, &count, sizeof(count));
    } else {
      FinishConnect(fd, answers);
    }
  }
  // A socket is drained once it has sent: a host with only IPv4 peers makes
  // no empty IPv6 read every tick.
  if (icmp4_used_) ReadEchoReplies(icmp4_fd_, /*v6=*/false, answers);
  if (icmp6_used_) ReadEchoReplies(icmp6_fd_, /*v6=*/true, answers);
}

void SocketProbeTransport::Wake() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t ignored = write(wake_fd_, &one, sizeof(one));
}

}  // namespace carbonroute::prober
