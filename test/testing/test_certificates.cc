#include "test/testing/test_certificates.h"

#include <crypt.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace carbonroute::testing {

std::string BcryptHash(const std::string& password) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof(salt)) == nullptr) {
    std::fprintf(stderr, "crypt_gensalt_rn failed\n");
    std::abort();
  }
  crypt_data data{};
  return crypt_r(password.c_str(), salt, &data);
}

TestCertificates MakeTestCertificates(const std::string& dir, const std::string& prefix) {
  const std::string base = absl::StrCat(dir, "/", prefix);
  TestCertificates files{base + "ca.crt", base + "server.crt", base + "server.key",
                         base + "client.crt", base + "client.key"};
  const std::string ext = base + "san.ext";
  std::ofstream(ext) << "subjectAltName=IP:127.0.0.1,DNS:kubernetes.default.svc\n";
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string script = absl::StrCat(
      "set -e; cd '", dir, "'; ", "openssl req -x509 ", ec, " -keyout '", base, "ca.key' -out '",
      files.ca_file, "' -days 1 -subj /CN=carbonroute-test-ca 2>/dev/null; ", "openssl req ", ec,
      " -keyout '", files.server_key_file, "' -out '", base,
      "server.csr' -subj /CN=127.0.0.1 2>/dev/null; ", "openssl x509 -req -in '", base,
      "server.csr' -CA '", files.ca_file, "' -CAkey '", base, "ca.key' -CAcreateserial -out '",
      files.server_cert_file, "' -days 1 -extfile '", ext, "' 2>/dev/null; ", "openssl req ", ec,
      " -keyout '", files.client_key_file, "' -out '", base,
      "client.csr' -subj /CN=carbonroute-test-client 2>/dev/null; ", "openssl x509 -req -in '",
      base, "client.csr' -CA '", files.ca_file, "' -CAkey '", base,
      "ca.key' -CAcreateserial -out '", files.client_cert_file, "' -days 1 2>/dev/null");
  if (std::system(script.c_str()) != 0) {
    std::fprintf(stderr, "MakeTestCertificates: openssl failed in %s\n", dir.c_str());
    std::abort();
  }
  return files;
}

}  // namespace carbonroute::testing
