// ICMP and ICMPv6 echo replies as the sockets deliver them (with and without
// the IPv4 header).
#include "prober/icmp_echo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute::prober;  // NOLINT: fuzz target
  const absl::Span<const uint8_t> packet(data, size);
  (void)ParseEchoReply(IpFamily::kV4, packet, true);
  (void)ParseEchoReply(IpFamily::kV4, packet, false);
  (void)ParseEchoReply(IpFamily::kV6, packet, false);
  return 0;
}
