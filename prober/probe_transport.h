// File: prober/probe_transport.h
//
// The prober's socket layer, as an interface (a seam of docs/architecture.md): the
// prober (prober.h) decides what to probe and when and keeps the statistics;
// a transport sends probes and reports answers with their times. The real
// one is SocketProbeTransport (socket_probe_transport.h); tests also use a
// scripted one driven by a FakeClock.
//
// Times are absl::Time on the real-time clock, because kernel receive
// timestamps (SO_TIMESTAMPNS) are CLOCK_REALTIME: RTT = received_at − sent_at.
//
// Thread safety: one thread (the prober's loop) calls Send, Cancel and Wait;
// Wake may be called from any thread.
#ifndef CARBONROUTE_PROBER_PROBE_TRANSPORT_H_
#define CARBONROUTE_PROBER_PROBE_TRANSPORT_H_

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "config/collector_config.h"

namespace carbonroute::prober {

// Where one probe goes: an IPv4 or IPv6 socket address (the port is used by TCP only).
struct ProbeEndpoint {
  ProbeProtocol protocol = ProbeProtocol::kIcmp;
  sockaddr_storage address{};
  socklen_t length = 0;

  int family() const { return address.ss_family; }
  // Sets the IPv4 or IPv6 port (host order in, network order stored).
  void set_port(uint16_t port);
  std::string ToString() const;  // "127.0.0.1", "[::1]:22"
};

// An answer to probe `token`.
struct ProbeAnswer {
  uint64_t token = 0;
  // ICMP: the kernel's receive timestamp of the echo reply. TCP: when the
  // connect completed (SYN-ACK, or RST — see SocketProbeTransport).
  absl::Time received_at;
  // false: a definite failure without an answer (host or network unreachable,
  // ...); the prober counts it as lost at once instead of waiting for the timeout.
  bool answered = true;
  // TCP: the kernel's own sample of the handshake's RTT (TCP_INFO tcpi_rtt,
  // microseconds; tcp(7)), when it has one. The prober takes it over
  // received_at − sent_at, which also holds any time this process waited for a
  // CPU before it saw the SYN-ACK: on a busy node that wait is not the
  // network's, and an answer it pushed past the timeout is not a loss.
  std::optional<absl::Duration> kernel_rtt;
};

class ProbeTransport {
 public:
  virtual ~ProbeTransport() = default;

  // Sends probe `token` (unique among probes in flight) to `to`; returns the
  // time taken immediately before the packet was handed to the kernel.
  // Errors: kUnavailable when the kernel refused the send (no route, no
  // socket for the address family); the prober counts the probe as lost.
  virtual absl::StatusOr<absl::Time> Send(const ProbeEndpoint& to, uint64_t token) = 0;
  // Forgets probe `token` (it timed out): a pending TCP connect is closed.
  virtual void Cancel(uint64_t token) = 0;
  // Blocks until `deadline` passes, Wake() is called, or an answer that is
  // timed on arrival in user space (a TCP connect) is ready; then replaces
  // the contents of `answers` with every answer ready by then (possibly
  // none; the caller reuses one vector, so a turn of the loop allocates nothing). Answers carrying
  // a kernel receive timestamp (ICMP) do not end the wait: they are collected when it ends, their
  // RTT unaffected, so the loop wakes once per batch rather than once per reply. Answers for
  // unknown tokens may be returned; the caller ignores them.
  virtual void Wait(absl::Time deadline, std::vector<ProbeAnswer>& answers) = 0;
  // Makes a blocked Wait() return. Safe to call from any thread.
  virtual void Wake() = 0;
};

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_PROBE_TRANSPORT_H_
