// TLS and authentication end to end, with certificates made at test time:
// the real collector started with --web.config.file (TLS, a required client
// certificate, a bcrypt Basic auth user) is scraped by Prometheus 2.42
// (Debian's) over TLS with Basic auth and read by scheduler-lite with the
// matching client options; wrong credentials are refused. Then
// `scheduler-lite serve --web.config.file` refuses a wrong password with 401.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;

constexpr char kUser[] = "prometheus";
constexpr char kPassword[] = "correct horse battery staple";

// Runs `command` with its stderr in the output; sets `code` to its exit code.
std::string RunWithStderr(const std::string& command, int* code) {
  const testing::ShellRun run = testing::Shell(command + " 2>&1");
  *code = run.exit_code;
  return run.output;
}

class TlsAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    certificates_ = testing::MakeTestCertificates(dir_.path());
    std::ofstream(dir_.File("password")) << kPassword << "\n";
    std::ofstream(dir_.File("wrong-password")) << "incorrect horse\n";
    http_ = *net::CurlHttpClient::Create("tls-auth-test");
  }

  // A web config with TLS, optionally a required client certificate, and the user.
  std::string WebConfig(bool require_client_certificate) {
    std::string yaml =
        absl::StrCat("tls_server_config:\n  cert_file: server.crt\n", "  key_file: server.key\n");
    if (require_client_certificate) {
      absl::StrAppend(&yaml, "  client_auth_type: RequireAndVerifyClientCert\n",
                      "  client_ca_file: ca.crt\n");
    }
    absl::StrAppend(&yaml, "basic_auth_users:\n  ", kUser, ": ", testing::BcryptHash(kPassword),
                    "\n");
    std::string path = dir_.File(require_client_certificate ? "web-mtls.yml" : "web.yml");
    std::ofstream(path) << yaml;
    return path;
  }

  net::HttpRequest Get(int port, const std::string& path, const std::string& password,
                       bool client_certificate) const {
    net::HttpRequest request;
    request.url = absl::StrCat("https://127.0.0.1:", port, path);
    request.ca_file = certificates_.ca_file;
    if (client_certificate) {
      request.client_cert_file = certificates_.client_cert_file;
      request.client_key_file = certificates_.client_key_file;
    }
    if (!password.empty()) {
      request.headers.push_back(
          {"Authorization", "Basic " + absl::Base64Escape(absl::StrCat(kUser, ":", password))});
    }
    return request;
  }

  int Status(const net::HttpRequest& request) const {
    absl::StatusOr<net::HttpResponse> response = http_->Send(request);
    return response.ok() ? response->status : 0;
  }

  testing::ScopedTempDir dir_;
  testing::TestCertificates certificates_;
  std::unique_ptr<net::CurlHttpClient> http_;
};

TEST_F(TlsAuthTest, PrometheusScrapesTheCollectorOverTlsWithBasicAuthAndAClientCertificate) {
  const std::string web_config = WebConfig(/*require_client_certificate=*/true);
  testing::CollectorProcess collector = testing::LaunchCollector(
      dir_.path(),
      absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir_.File("c.sqlite"),
                   "\nnode: {name: tls-node}\nproviders:\n"
                   "  - {type: replay, locations: [DE, FR, PL]}\n"),
      "collector.log", {"--web.config.file", web_config});
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  const int port = collector.port;
  ASSERT_TRUE(testing::WaitFor(
      [&] { return Status(Get(port, "/healthz", kPassword, true)) == 200; }, absl::Seconds(30)))
      << collector.process->Log();
  EXPECT_THAT(collector.process->Log(), HasSubstr("serving https://127.0.0.1:"));

  EXPECT_EQ(Status(Get(port, "/metrics", "", true)), 401);
  EXPECT_EQ(Status(Get(port, "/metrics", "incorrect horse", true)), 401);
  absl::StatusOr<net::HttpResponse> no_certificate =
      http_->Send(Get(port, "/metrics", kPassword, false));
  EXPECT_FALSE(no_certificate.ok()) << "refused in the TLS handshake";
  net::HttpRequest plain = Get(port, "/metrics", kPassword, true);
  plain.url = absl::StrCat("http://127.0.0.1:", port, "/metrics");
  EXPECT_NE(Status(plain), 200);

  // Prometheus 2.42, as its users configure a scrape of an exporter with a web config.
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary));
  std::unique_ptr<testing::Subprocess> prometheus = testing::StartPrometheus(
      dir_.path(), 0,
      {{"carbonroute", port,
        absl::StrCat("scheme: https\ntls_config:\n  ca_file: ", certificates_.ca_file,
                     "\n  cert_file: ", certificates_.client_cert_file, "\n  key_file: ",
                     certificates_.client_key_file, "\nbasic_auth:\n  username: ", kUser,
                     "\n  password_file: ", dir_.File("password"), "\n")}});
  const int prometheus_port = testing::PrometheusPort(*prometheus);
  ASSERT_GT(prometheus_port, 0) << prometheus->Log();
  const bool scraped =
      testing::WaitForSeries(prometheus_port,
                             "carbonroute_carbon_intensity_grams_per_kilowatt_hour", 3)
          .size() == 3;
  ASSERT_TRUE(scraped) << prometheus->Log() << testing::HttpGet(prometheus_port, "/api/v1/targets");
  EXPECT_EQ(prometheus->Terminate(), 0);

  // scheduler-lite reads the same endpoint with the matching client options.
  const std::string source = absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " rank --metrics https://127.0.0.1:", port,
      "/metrics --candidates locations --format json --data-dir ", CARBONROUTE_SOURCE_DIR,
      "/data --ca-file ", certificates_.ca_file, " --client-cert ", certificates_.client_cert_file,
      " --client-key ", certificates_.client_key_file, " --basic-auth-user ", kUser);
  int code = 0;
  const std::string ranking = RunWithStderr(
      absl::StrCat(source, " --basic-auth-password-file ", dir_.File("password")), &code);
  ASSERT_EQ(code, 0) << ranking;
  EXPECT_EQ(nlohmann::json::parse(ranking)["candidates"].size(), 3u) << ranking;
  EXPECT_THAT(ranking, ::testing::Not(HasSubstr(kPassword)));

  const std::string refused = RunWithStderr(
      absl::StrCat(source, " --basic-auth-password-file ", dir_.File("wrong-password")), &code);
  EXPECT_NE(code, 0);
  EXPECT_THAT(refused, HasSubstr("401"));
  EXPECT_THAT(refused, ::testing::Not(HasSubstr("incorrect horse")));

  // `window` reads the same protected collector's forecast API with the same options.
  const std::string window = absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " window --collector https://127.0.0.1:", port,
      " --location DE --duration 2h --deadline +12h --format json --ca-file ",
      certificates_.ca_file, " --client-cert ", certificates_.client_cert_file, " --client-key ",
      certificates_.client_key_file, " --basic-auth-user ", kUser);
  const std::string best = RunWithStderr(
      absl::StrCat(window, " --basic-auth-password-file ", dir_.File("password"), " 2>&1"), &code);
  EXPECT_EQ(code, 0) << best;
  EXPECT_THAT(best, HasSubstr("{\"location\":\"DE\",\"start\":"));
  const std::string locked_out = RunWithStderr(
      absl::StrCat(window, " --basic-auth-password-file ", dir_.File("wrong-password"), " 2>&1"),
      &code);
  EXPECT_NE(code, 0);
  EXPECT_THAT(locked_out, HasSubstr("401"));
  EXPECT_EQ(collector.process->Terminate(), 0);
}

TEST_F(TlsAuthTest, SchedulerLiteServeRefusesAWrongPasswordWith401) {
  const std::string web_config = WebConfig(/*require_client_certificate=*/false);
  testing::Subprocess serve(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve", "--listen", "127.0.0.1:0", "--metrics",
       "http://127.0.0.1:1/metrics", "--data-dir", std::string(CARBONROUTE_SOURCE_DIR) + "/data",
       "--web.config.file", web_config},
      dir_.File("serve.log"));
  const int port = testing::LoggedPort(serve, "serving the kube-scheduler extender on ");
  ASSERT_GT(port, 0) << serve.Log();
  ASSERT_TRUE(testing::WaitFor([&] { return Status(Get(port, "/healthz", kPassword, false)) != 0; },
                               absl::Seconds(30)))
      << serve.Log();
  EXPECT_EQ(Status(Get(port, "/healthz", "incorrect horse", false)), 401);
  EXPECT_EQ(Status(Get(port, "/healthz", "", false)), 401);
  net::HttpRequest prioritize = Get(port, "/prioritize", "incorrect horse", false);
  prioritize.method = "POST";
  prioritize.body = R"({"Pod":{},"NodeNames":["a"]})";
  EXPECT_EQ(Status(prioritize), 401);
  EXPECT_NE(Status(Get(port, "/healthz", kPassword, false)), 401);
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

TEST_F(TlsAuthTest, ABadWebConfigIsAUsageErrorNamingTheKey) {
  std::ofstream(dir_.File("bad.yml")) << "tls_server_config: {cert_file: server.crt}\n";
  int code = 0;
  const std::string output = RunWithStderr(
      absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                   " serve --listen 127.0.0.1:0 --metrics "
                   "http://127.0.0.1:1/metrics --data-dir ",
                   CARBONROUTE_SOURCE_DIR, "/data --web.config.file ", dir_.File("bad.yml")),
      &code);
  EXPECT_EQ(code, 2) << output;
  EXPECT_THAT(output, HasSubstr("tls_server_config.key_file is required"));
}

}  // namespace
}  // namespace carbonroute
