#include "prober/icmp_echo.h"

namespace carbonroute::prober {
namespace {

constexpr uint8_t kEchoRequestV4 = 8, kEchoReplyV4 = 0;
constexpr uint8_t kEchoRequestV6 = 128, kEchoReplyV6 = 129;
constexpr std::size_t kHeaderBytes = 8, kTokenBytes = 8;

uint16_t Read16(absl::Span<const uint8_t> b, std::size_t at) {
  return static_cast<uint16_t>(b[at] << 8 | b[at + 1]);
}

}  // namespace

uint16_t InternetChecksum(absl::Span<const uint8_t> bytes) {
  uint32_t sum = 0;
  std::size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) sum += static_cast<uint32_t>(bytes[i] << 8 | bytes[i + 1]);
  if (i < bytes.size()) sum += static_cast<uint32_t>(bytes[i] << 8);  // odd length: pad with zero
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

std::array<uint8_t, kEchoRequestBytes> BuildEchoRequest(IpFamily family, uint16_t identifier,
                                                        uint16_t sequence, uint64_t token) {
  std::array<uint8_t, kEchoRequestBytes> packet{};
  packet[0] = family == IpFamily::kV4 ? kEchoRequestV4 : kEchoRequestV6;
  packet[4] = static_cast<uint8_t>(identifier >> 8);
  packet[5] = static_cast<uint8_t>(identifier);
  packet[6] = static_cast<uint8_t>(sequence >> 8);
  packet[7] = static_cast<uint8_t>(sequence);
  for (std::size_t i = 0; i < kTokenBytes; ++i)
    packet[kHeaderBytes + i] = static_cast<uint8_t>(token >> (56 - 8 * i));
  if (family == IpFamily::kV4) {
    const uint16_t checksum = InternetChecksum(packet);
    packet[2] = static_cast<uint8_t>(checksum >> 8);
    packet[3] = static_cast<uint8_t>(checksum);
  }
  return packet;
}

std::optional<EchoReply> ParseEchoReply(IpFamily family, absl::Span<const uint8_t> packet,
                                        bool with_ip_header) {
  if (with_ip_header && family == IpFamily::kV4) {
    if (packet.empty() || (packet[0] >> 4) != 4) return std::nullopt;
    const std::size_t ip_header = static_cast<std::size_t>(packet[0] & 0x0f) * 4;
    if (ip_header < 20 || packet.size() < ip_header) return std::nullopt;
    packet.remove_prefix(ip_header);
  }
  if (packet.size() < kHeaderBytes + kTokenBytes) return std::nullopt;
  if (packet[0] != (family == IpFamily::kV4 ? kEchoReplyV4 : kEchoReplyV6) || packet[1] != 0)
    return std::nullopt;
  if (family == IpFamily::kV4 && InternetChecksum(packet) != 0)
    return std::nullopt;  // a valid sum folds to 0
  EchoReply reply;
  reply.identifier = Read16(packet, 4);
  reply.sequence = Read16(packet, 6);
  for (std::size_t i = 0; i < kTokenBytes; ++i)
    reply.token = reply.token << 8 | packet[kHeaderBytes + i];
  return reply;
}

}  // namespace carbonroute::prober
