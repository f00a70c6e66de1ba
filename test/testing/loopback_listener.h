// File: test/testing/loopback_listener.h
//
// The listening socket of the tests' fake servers: TCP on 127.0.0.1, port 0
// (the kernel picks a free one), so two test runs on one machine never meet.
#ifndef CARBONROUTE_TEST_TESTING_LOOPBACK_LISTENER_H_
#define CARBONROUTE_TEST_TESTING_LOOPBACK_LISTENER_H_

namespace carbonroute::testing {

// A listening socket on 127.0.0.1; `port` receives the port bound. Aborts
// the test binary, naming `who`, if it cannot listen.
int ListenOnLoopback(const char* who, int& port);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_LOOPBACK_LISTENER_H_
