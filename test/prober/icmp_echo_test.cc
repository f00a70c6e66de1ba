#include "prober/icmp_echo.h"

#include <gtest/gtest.h>

namespace carbonroute::prober {
namespace {

TEST(InternetChecksum, Rfc1071Example) {
  // RFC 1071 §3: the 16-bit sums of 00 01 f2 03 f4 f5 f6 f7 fold to 0xddf2; the checksum is its
  // complement.
  const std::vector<uint8_t> bytes = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(InternetChecksum(bytes), static_cast<uint16_t>(~0xddf2));
  const std::vector<uint8_t> odd = {0x01};
  EXPECT_EQ(InternetChecksum(odd), static_cast<uint16_t>(~0x0100));
}

// The reply a peer sends: the request with the type changed (and the checksum fixed for IPv4).
std::vector<uint8_t> AsReply(IpFamily family, absl::Span<const uint8_t> request_bytes) {
  std::vector<uint8_t> request(request_bytes.begin(), request_bytes.end());
  request[0] = family == IpFamily::kV4 ? 0 : 129;
  request[2] = request[3] = 0;
  if (family == IpFamily::kV4) {
    const uint16_t checksum = InternetChecksum(request);
    request[2] = static_cast<uint8_t>(checksum >> 8);
    request[3] = static_cast<uint8_t>(checksum);
  }
  return request;
}

TEST(IcmpEcho, RequestIsWellFormed) {
  const auto v4 = BuildEchoRequest(IpFamily::kV4, 0x1234, 7, 0x0102030405060708);
  ASSERT_EQ(v4.size(), 24u);
  EXPECT_EQ(v4[0], 8);
  EXPECT_EQ(InternetChecksum(v4), 0);  // a correct checksum sums to zero
  EXPECT_EQ(v4[4], 0x12);
  EXPECT_EQ(v4[7], 7);
  EXPECT_EQ(v4[8], 0x01);
  EXPECT_EQ(v4[15], 0x08);
  const auto v6 = BuildEchoRequest(IpFamily::kV6, 1, 2, 3);
  EXPECT_EQ(v6[0], 128);
  EXPECT_EQ(v6[2], 0);  // the kernel fills the ICMPv6 checksum
  EXPECT_EQ(v6[3], 0);
}

TEST(IcmpEcho, ReplyRoundTripsInBothFamilies) {
  for (IpFamily family : {IpFamily::kV4, IpFamily::kV6}) {
    const auto reply = ParseEchoReply(
        family, AsReply(family, BuildEchoRequest(family, 99, 65535, 0xfeedfacecafebeef)), false);
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(reply->identifier, 99);
    EXPECT_EQ(reply->sequence, 65535);
    EXPECT_EQ(reply->token, 0xfeedfacecafebeefULL);
  }
}

TEST(IcmpEcho, RawIpv4RepliesCarryTheIpHeader) {
  std::vector<uint8_t> packet(24, 0);
  packet[0] = 0x46;  // IPv4, IHL 6 words (24 bytes, with options)
  const std::vector<uint8_t> icmp =
      AsReply(IpFamily::kV4, BuildEchoRequest(IpFamily::kV4, 1, 5, 42));
  packet.insert(packet.end(), icmp.begin(), icmp.end());
  const auto reply = ParseEchoReply(IpFamily::kV4, packet, true);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->sequence, 5);
  EXPECT_EQ(reply->token, 42u);
}

TEST(IcmpEcho, RejectsOtherTypesShortPacketsAndBadChecksums) {
  const auto request = BuildEchoRequest(IpFamily::kV4, 1, 1, 1);
  EXPECT_FALSE(
      ParseEchoReply(IpFamily::kV4, request, false).has_value());  // a request, not a reply
  std::vector<uint8_t> reply = AsReply(IpFamily::kV4, request);
  EXPECT_FALSE(
      ParseEchoReply(IpFamily::kV4, absl::MakeSpan(reply).subspan(0, 12), false).has_value());
  reply[10] ^= 0xff;  // corrupt the payload
  EXPECT_FALSE(ParseEchoReply(IpFamily::kV4, reply, false).has_value());
  std::vector<uint8_t> unreachable = AsReply(IpFamily::kV4, request);
  unreachable[0] = 3;  // destination unreachable
  EXPECT_FALSE(ParseEchoReply(IpFamily::kV4, unreachable, false).has_value());
  EXPECT_FALSE(ParseEchoReply(IpFamily::kV4, std::vector<uint8_t>{0x45}, true).has_value());
}

}  // namespace
}  // namespace carbonroute::prober
