// File: prober/socket_probe_transport.h
//
// The real ProbeTransport: ICMP echo over IPv4 and IPv6 and TCP connect, on a
// non-blocking epoll loop.
//
// ICMP: one socket per address family, shared by every target (not one per
// target). The socket kind follows ProbeConfig::icmp_mode:
//   datagram  SOCK_DGRAM/IPPROTO_ICMP(V6), unprivileged: allowed when the
//             process's group is inside net.ipv4.ping_group_range (which
//             governs IPv6 too). The kernel rewrites the echo identifier, so
//             replies are matched on the 64-bit token in the payload (icmp_echo.h).
//   raw       SOCK_RAW, needs CAP_NET_RAW. Sees every echo reply the host
//             receives; replies are matched on identifier + token.
//   auto      datagram if allowed, else raw.
// Receive times are the kernel's (SO_TIMESTAMPNS), so the RTT excludes the
// time the event loop took to wake up. That is also why ICMP sockets are not
// in the epoll set: replies queue in the socket (SO_RCVBUF asks for 1 MiB)
// and Wait() drains them when it returns, at the prober's next tick. Raw
// sockets pass only echo replies (ICMP_FILTER, ICMP6_FILTER).
//
// TCP: a non-blocking connect per probe to the peer's port. The RTT is the
// handshake: on a connection, the kernel's own sample of it (TCP_INFO
// tcpi_rtt, tcp(7)), so a process that waited for a CPU neither inflates the
// RTT nor turns a late-seen answer into a loss; on a refusal (no sample), from
// connect() until this process saw the outcome. A SYN-ACK
// (connected) or an RST (connection refused) both prove the peer answered, so
// both count as reachable with that RTT; no answer within the timeout is a
// loss, and so is an ICMP unreachable. Connections are closed at once with
// SO_LINGER 0 (an RST, no TIME_WAIT), so a thousand peers do not pile up sockets.
//
// Errors (Create): kPermissionDenied when ICMP is asked for and no ICMP socket can be opened in the
// requested mode, with a message naming both remedies (widen
// net.ipv4.ping_group_range, or grant CAP_NET_RAW). An address family whose
// socket cannot be opened (IPv6 disabled) is logged; sends to it fail.
// Thread safety: as ProbeTransport.
#ifndef CARBONROUTE_PROBER_SOCKET_PROBE_TRANSPORT_H_
#define CARBONROUTE_PROBER_SOCKET_PROBE_TRANSPORT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "config/collector_config.h"
#include "prober/probe_transport.h"

namespace carbonroute::prober {

class SocketProbeTransport : public ProbeTransport {
 public:
  // `icmp_mode`: which ICMP sockets to open; nullopt opens none (only TCP
  // peers: no ping_group_range or CAP_NET_RAW needed, and ICMP sends fail).
  // `identifier`: the echo identifier of raw-socket requests (datagram
  // sockets get theirs from the kernel).
  static absl::StatusOr<std::unique_ptr<SocketProbeTransport>> Create(
      std::optional<IcmpMode> icmp_mode, uint16_t identifier);
  ~SocketProbeTransport() override;

  // The ICMP socket kind in use and why, e.g. "datagram (unprivileged):
  // net.ipv4.ping_group_range \"0 2147483647\" includes group 0".
  const std::string& icmp_mode_description() const { return icmp_description_; }
  bool raw() const { return raw_; }

  absl::StatusOr<absl::Time> Send(const ProbeEndpoint& to, uint64_t token) override;
  void Cancel(uint64_t token) override;
  void Wait(absl::Time deadline, std::vector<ProbeAnswer>& answers) override;
  void Wake() override;

 private:
  SocketProbeTransport() = default;
  absl::Status OpenIcmpSockets(IcmpMode mode);
  absl::StatusOr<absl::Time> SendEcho(const ProbeEndpoint& to, uint64_t token);
  absl::StatusOr<absl::Time> Connect(const ProbeEndpoint& to, uint64_t token);
  void ReadEchoReplies(int fd, bool v6, std::vector<ProbeAnswer>& out) const;
  void FinishConnect(int fd, std::vector<ProbeAnswer>& out);

  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  int icmp4_fd_ = -1;
  int icmp6_fd_ = -1;
  bool raw_ = false;
  bool icmp4_used_ =
      false;  // whether a request went out on the socket (it is drained from then on)
  bool icmp6_used_ = false;
  uint16_t identifier_ = 0;
  uint16_t sequence_ = 0;
  std::string icmp_description_;
  absl::flat_hash_map<int, uint64_t> connects_;     // fd → token
  absl::flat_hash_map<uint64_t, int> connect_fds_;  // token → fd
  std::vector<ProbeAnswer> ready_;                  // answers known at Send time
};

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_SOCKET_PROBE_TRANSPORT_H_
