// TLS and Basic authentication on HttpServer, configured as Prometheus
// exporters are (net/web_config.h), with certificates made at test time and
// bcrypt hashes made by libcrypt, reached over loopback with libcurl.
#include "net/web_config.h"

#include <crypt.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "net/http_server.h"
#include "test/testing/status_matchers.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute::net {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

// A bcrypt hash of `password` at cost 4 (the lowest; tests need no strength).
std::string Bcrypt(const std::string& password) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof(salt)), nullptr);
  crypt_data data{};
  return crypt_r(password.c_str(), salt, &data);
}

std::string Write(const testing::ScopedTempDir& dir, const std::string& name,
                  const std::string& text) {
  std::ofstream(dir.File(name)) << text;
  return dir.File(name);
}

class WebConfigServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    certificates_ = testing::MakeTestCertificates(dir_.path());
    http_ = *CurlHttpClient::Create("web-config-test");
  }

  // Starts a server whose only route answers "ok", configured by `yaml`.
  absl::Status Serve(const std::string& yaml) {
    absl::StatusOr<WebConfig> config = LoadWebConfig(Write(dir_, "web.yml", yaml));
    if (!config.ok()) return config.status();
    HttpServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.routes["/metrics"] = [](const HttpServerRequest&) {
      return HttpServerResponse{200, "text/plain", "ok\n"};
    };
    ApplyWebConfig(*config, options);
    absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(std::move(options));
    if (!server.ok()) return server.status();
    server_ = *std::move(server);
    return absl::OkStatus();
  }

  HttpRequest Get(const std::string& user = "", const std::string& password = "") const {
    HttpRequest request;
    request.url = absl::StrCat("https://127.0.0.1:", server_->port(), "/metrics");
    request.ca_file = certificates_.ca_file;
    if (!user.empty()) {
      request.headers.push_back(
          {"Authorization", "Basic " + absl::Base64Escape(absl::StrCat(user, ":", password))});
    }
    return request;
  }

  // Get() presenting the client certificate of `pki`.
  HttpRequest GetWithCertificateOf(const testing::TestCertificates& pki) const {
    HttpRequest request = Get();
    request.client_cert_file = pki.client_cert_file;
    request.client_key_file = pki.client_key_file;
    return request;
  }

  // TlsSection() asking for client certificates under `client_auth_type`.
  std::string ClientAuthSection(const std::string& client_auth_type) const {
    return TlsSection(absl::StrCat("  client_auth_type: ", client_auth_type,
                                   "\n  client_ca_file: ", certificates_.ca_file, "\n"));
  }

  std::string TlsSection(const std::string& extra = "") const {
    return absl::StrCat("tls_server_config:\n  cert_file: ", certificates_.server_cert_file,
                        "\n  key_file: ", certificates_.server_key_file, "\n", extra);
  }

  testing::ScopedTempDir dir_;
  testing::TestCertificates certificates_;
  std::unique_ptr<CurlHttpClient> http_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(WebConfigServerTest, BasicAuthOverTlsRefusesAWrongPasswordWith401) {
  ASSERT_THAT(Serve(absl::StrCat(TlsSection(), "basic_auth_users:\n  prometheus: ",
                                 Bcrypt("right horse battery"), "\n")),
              IsOk());
  absl::StatusOr<HttpResponse> none = http_->Send(Get());
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(none->status, 401);
  EXPECT_THAT(none->headers["www-authenticate"], HasSubstr("Basic realm=\"carbonroute\""));

  absl::StatusOr<HttpResponse> wrong = http_->Send(Get("prometheus", "wrong"));
  ASSERT_THAT(wrong, IsOk());
  EXPECT_EQ(wrong->status, 401);
  absl::StatusOr<HttpResponse> unknown = http_->Send(Get("nobody", "right horse battery"));
  ASSERT_THAT(unknown, IsOk());
  EXPECT_EQ(unknown->status, 401);

  for (int i = 0; i < 3; ++i) {  // the second and third are answered from the remembered digest
    absl::StatusOr<HttpResponse> right = http_->Send(Get("prometheus", "right horse battery"));
    ASSERT_THAT(right, IsOk());
    EXPECT_EQ(right->status, 200);
    EXPECT_EQ(right->body, "ok\n");
  }
  absl::StatusOr<HttpResponse> wrong_again = http_->Send(Get("prometheus", "right horse batter"));
  ASSERT_THAT(wrong_again, IsOk());
  EXPECT_EQ(wrong_again->status, 401);
}

TEST_F(WebConfigServerTest, PlainHttpToATlsPortGetsNoPage) {
  ASSERT_THAT(Serve(TlsSection()), IsOk());
  HttpRequest plain = Get();
  plain.url = absl::StrCat("http://127.0.0.1:", server_->port(), "/metrics");
  absl::StatusOr<HttpResponse> response = http_->Send(plain);
  EXPECT_TRUE(!response.ok() || response->status != 200);
}

TEST_F(WebConfigServerTest, ARequiredClientCertificateRefusesAClientWithoutOne) {
  ASSERT_THAT(Serve(ClientAuthSection("RequireAndVerifyClientCert")), IsOk());
  // Refused in the handshake (as exporter-toolkit's RequireAndVerifyClientCert), not by a page.
  absl::StatusOr<HttpResponse> without = http_->Send(Get());
  EXPECT_FALSE(without.ok()) << without->status << " " << without->body;

  // A certificate from another CA is refused too.
  const testing::TestCertificates other = testing::MakeTestCertificates(dir_.path(), "other-");
  absl::StatusOr<HttpResponse> refused = http_->Send(GetWithCertificateOf(other));
  EXPECT_FALSE(refused.ok() && refused->status == 200);

  absl::StatusOr<HttpResponse> accepted = http_->Send(GetWithCertificateOf(certificates_));
  ASSERT_THAT(accepted, IsOk());
  EXPECT_EQ(accepted->status, 200);
}

TEST_F(WebConfigServerTest, AnOptionalClientCertificateIsVerifiedWhenGiven) {
  ASSERT_THAT(Serve(ClientAuthSection("VerifyClientCertIfGiven")), IsOk());
  absl::StatusOr<HttpResponse> without = http_->Send(Get());
  ASSERT_THAT(without, IsOk());
  EXPECT_EQ(without->status, 200);
  const testing::TestCertificates other = testing::MakeTestCertificates(dir_.path(), "other-");
  absl::StatusOr<HttpResponse> refused = http_->Send(GetWithCertificateOf(other));
  EXPECT_FALSE(refused.ok() && refused->status == 200);
}

TEST(WebConfig, MistakesAreNamed) {
  testing::ScopedTempDir dir;
  struct Case {
    std::string yaml;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"tls_server_config: {cert_file: a.crt, key_file: a.key, cipher_suite: [x]}\n",
       "tls_server_config.cipher_suite: unknown key"},
      {"tls_server_config: {cert_file: a.crt, key_file: a.key, cipher_suites: [x]}\n",
       "tls_server_config.cipher_suites: not supported"},
      {"tls_server_config: {key_file: a.key}\n", "tls_server_config.cert_file is required"},
      {"tls_server_config: {cert_file: missing.crt, key_file: a.key}\n",
       "tls_server_config.cert_file: cannot read"},
      {"tls_server_config: {cert_file: a.crt, key_file: a.key, client_ca_file: a.crt}\n",
       "client_auth_type is NoClientCert"},
      {"tls_server_config: {cert_file: a.crt, key_file: a.key, client_auth_type: "
       "RequireAndVerifyClientCert}\n",
       "needs client_ca_file"},
      {"tls_server_config: {cert_file: a.crt, key_file: a.key, client_auth_type: Always}\n",
       "unknown value \"Always\""},
      {"tls_server_config: {cert_file: a.crt, key_file: a.key, min_version: TLS10}\n",
       "min_version: \"TLS10\" is not supported"},
      {"basic_auth_users: {alice: secret}\n", "basic_auth_users.alice: not a bcrypt hash"},
      {"basic_auth_user: {alice: x}\n", "basic_auth_user: unknown key"},
      {"http_server_config: {http2: false}\n", "http_server_config: not supported"},
      {"tls_server_config: [\n", "malformed YAML"},
  };
  std::ofstream(dir.File("a.crt")) << "pem";
  std::ofstream(dir.File("a.key")) << "pem";
  for (const Case& c : cases) {
    const std::string path = Write(dir, "web.yml", c.yaml);
    EXPECT_THAT(LoadWebConfig(path),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::AllOf(HasSubstr(path), HasSubstr(c.message))))
        << c.yaml;
  }
  EXPECT_THAT(LoadWebConfig(dir.File("absent.yml")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent.yml")));
  // The secret-ish value is never echoed: the message names the user only.
  EXPECT_THAT(LoadWebConfig(Write(dir, "web.yml", "basic_auth_users: {alice: hunter2}\n")),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::Not(HasSubstr("hunter2"))));
}

TEST(WebConfig, RelativePathsAreRelativeToTheFile) {
  testing::ScopedTempDir dir;
  testing::TestCertificates certificates = testing::MakeTestCertificates(dir.path());
  const std::string yaml = "tls_server_config: {cert_file: server.crt, key_file: server.key}\n";
  absl::StatusOr<WebConfig> config = LoadWebConfig(Write(dir, "web.yml", yaml));
  ASSERT_THAT(config, IsOk());
  ASSERT_TRUE(config->tls.has_value());
  EXPECT_THAT(config->tls->certificate_pem, HasSubstr("BEGIN CERTIFICATE"));
  EXPECT_FALSE(config->tls->require_client_certificate);
}

TEST(WebConfig, AKeyThatDoesNotMatchIsAStartError) {
  testing::ScopedTempDir dir;
  testing::TestCertificates certificates = testing::MakeTestCertificates(dir.path());
  HttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  const std::string certificate = testing::ReadFile(certificates.server_cert_file);
  // A real key, well formed, but the client's: it does not match the server's certificate.
  options.tls =
      HttpServerTls{certificate, testing::ReadFile(certificates.client_key_file), "", false, false};
  EXPECT_THAT(HttpServer::Start(options),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  // The same certificate with its own key starts: what failed was the pair.
  options.tls->private_key_pem = testing::ReadFile(certificates.server_key_file);
  EXPECT_THAT(HttpServer::Start(std::move(options)), IsOk());
}

}  // namespace
}  // namespace carbonroute::net
