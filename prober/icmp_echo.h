// File: prober/icmp_echo.h
//
// ICMP echo request/reply encoding for the prober (RFC 792 for IPv4, RFC 4443
// §4 for IPv6). Pure functions over bytes; the sockets live elsewhere.
//
// Layout (8-byte header, then payload):
//   type(1) code(1) checksum(2) identifier(2) sequence(2) | token(8) padding…
// Types: IPv4 echo request 8 / reply 0; IPv6 echo request 128 / reply 129.
// Checksum: RFC 1071 one's-complement sum. IPv4 fills it; for IPv6 the kernel
// computes it over the pseudo-header (ICMPv6 sockets), so it is left 0.
//
// Matching: an unprivileged datagram ICMP socket (SOCK_DGRAM, IPPROTO_ICMP)
// lets the kernel rewrite the identifier to the socket's "port", so replies
// are matched on the 64-bit token carried in the payload alone, not on the
// identifier (the sequence number only numbers the requests).
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_PROBER_ICMP_ECHO_H_
#define CARBONROUTE_PROBER_ICMP_ECHO_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"

namespace carbonroute::prober {

enum class IpFamily { kV4, kV6 };

// RFC 1071 Internet checksum of `bytes` (the value to store, already complemented).
uint16_t InternetChecksum(absl::Span<const uint8_t> bytes);

// An echo request: the 8-byte header, then a 16-byte payload with `token`
// first, zero padded: 24 bytes of ICMP.
constexpr std::size_t kEchoRequestBytes = 24;
std::array<uint8_t, kEchoRequestBytes> BuildEchoRequest(IpFamily family, uint16_t identifier,
                                                        uint16_t sequence, uint64_t token);

struct EchoReply {
  uint16_t identifier = 0;
  uint16_t sequence = 0;
  uint64_t token = 0;
};

// Parses an echo reply. `with_ip_header`: raw IPv4 sockets deliver the IP
// header first (its length from the IHL field); datagram sockets and IPv6
// sockets do not. nullopt for anything else: another ICMP type, a short
// packet, or (IPv4) a bad checksum.
std::optional<EchoReply> ParseEchoReply(IpFamily family, absl::Span<const uint8_t> packet,
                                        bool with_ip_header);

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_ICMP_ECHO_H_
