// File: test/testing/netns.h
//
// Runs test code inside a network namespace the test creates, so probes and
// sysctls touch only that namespace: its own loopback (brought up here), its
// own net.ipv4.ping_group_range, its own TUN devices. The host is untouched.
//
// Linux namespaces are per thread: RunInNewNetworkNamespace starts a thread,
// unshares CLONE_NEWNET there, brings `lo` up and runs `body` on that thread.
// Sockets opened by `body` stay in the namespace even when used elsewhere.
// Needs CAP_SYS_ADMIN (CI runs as root); returns false with `error` set otherwise.
#ifndef CARBONROUTE_TEST_TESTING_NETNS_H_
#define CARBONROUTE_TEST_TESTING_NETNS_H_

#include <functional>
#include <string>

namespace carbonroute::testing {

bool RunInNewNetworkNamespace(const std::function<void()>& body, std::string* error);

// In the calling thread's namespace: writes /proc/sys/net/ipv4/ping_group_range.
bool SetPingGroupRange(const std::string& range);

// In the calling thread's namespace: sets `name` up with IPv4 address
// `address`/`prefix` (empty address: only up).
bool ConfigureInterface(const std::string& name, const std::string& address, int prefix);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_NETNS_H_
