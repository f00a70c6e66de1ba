// File: test/testing/test_certificates.h
//
// A throwaway PKI made at test time with the openssl command: a CA, a
// server certificate for 127.0.0.1 (subjectAltName IP:127.0.0.1, and
// DNS:kubernetes.default.svc for a kubeconfig's tls-server-name) and a client
// certificate (CN carbonroute-test-client) signed by it, P-256 keys, valid
// for a day. Nothing is kept beyond the test's directory.
#ifndef CARBONROUTE_TEST_TESTING_TEST_CERTIFICATES_H_
#define CARBONROUTE_TEST_TESTING_TEST_CERTIFICATES_H_

#include <string>

namespace carbonroute::testing {

struct TestCertificates {
  std::string ca_file, server_cert_file, server_key_file;  // PEM
  std::string client_cert_file, client_key_file;
};

// Writes the files under `dir` (with `prefix` in their names, so one test
// can make two unrelated CAs). Aborts the test binary if openssl fails.
TestCertificates MakeTestCertificates(const std::string& dir, const std::string& prefix = "");

// `password`'s bcrypt hash (cost 4: fast in tests), as a web config's
// basic_auth_users holds it. Needs libcrypt (link PkgConfig::LIBCRYPT).
std::string BcryptHash(const std::string& password);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_TEST_CERTIFICATES_H_
