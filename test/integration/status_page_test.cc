// Integration test: the collector's status page (GET /, exporter/status_page.h)
// as a person sees it. A real collector probes 20 peers on loopback over TCP
// (15 answering, 1 whose accept queue is full so its probes are lost, 4
// declared from the static matrix) and polls replay for five grid locations;
// headless Chromium (Debian's `chromium`, driven by puppeteer-core:
// test/integration/status_page_check.cjs) loads the page, and this test checks
// what it shows, the keyboard path, text for every colour, and the time to
// draw 100 × 100 peers. The screenshot is kept as an artefact:
// status_page_20_peers.png in the test's working directory (build/test).
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/shell.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using Json = nlohmann::json;

// A TCP listener on 127.0.0.1 that never accepts: once its one-slot accept
// queue is full, the kernel drops new SYNs, so probes to it time out (loss)
// without leaving loopback.
class StuckListener {
 public:
  StuckListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(fd_, 0) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
      return;
    }
    port_ = ntohs(address.sin_port);
  }
  ~StuckListener() {
    if (fd_ >= 0) close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

class StatusPage : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/chromium"))
        << "install Debian's chromium (./scripts/test does)";
    modules_ = testing::NpmTools("status-page");
    ASSERT_FALSE(modules_.empty()) << "npm tools could not be installed (scripts/lib/npm_tools.sh)";
  }

  // What Chromium shows at `url` (status_page_check.cjs), logged in with
  // `credentials` ("user:password") if given; null after a failure.
  Json ShownAt(const std::string& url, const std::string& screenshot,
               const std::string& credentials = "") {
    const testing::ShellRun run = testing::Shell(absl::StrCat(
        "NODE_PATH=", modules_, " node ", CARBONROUTE_SOURCE_DIR,
        "/test/integration/status_page_check.cjs ", url, " ", screenshot, " ", dir_.path(),
        "/chromium-profile", credentials.empty() ? "" : " '" + credentials + "'", " 2>",
        dir_.path(), "/chromium.log"));
    if (run.exit_code != 0) {
      ADD_FAILURE() << run.output << testing::Shell("cat " + dir_.path() + "/chromium.log").output;
      return Json();
    }
    return Json::parse(run.output);
  }

  std::string modules_;
  testing::ScopedTempDir dir_;  // status_page
};

TEST_F(StatusPage, ChromiumShowsTheMatrixAndCarbonWithTextForEveryColour) {
  testing::ScopedTempDir& dir = dir_;
  testing::FakeProviderServer answering;  // accepts every connection
  StuckListener stuck;
  ASSERT_GT(stuck.port(), 0);

  std::string peers;
  for (int i = 1; i <= 15; ++i) {
    absl::StrAppend(&peers, "    - {name: node-", i < 10 ? "0" : "", i,
                    ", region: europe-west3, zone: europe-west3-", i % 2 ? "b" : "c",
                    ", address: 127.0.0.1, protocol: tcp, port: ", answering.port(), "}\n");
  }
  absl::StrAppend(&peers,
                  "    - {name: node-16, region: europe-west1, zone: europe-west1-b, address: "
                  "127.0.0.1, protocol: tcp, port: ",
                  stuck.port(), "}\n");
  for (const char* region : {"us-east1", "asia-northeast1", "europe-north1", "us-west1"}) {
    absl::StrAppend(&peers, "    - {name: ", region, "-node, region: ", region, "}\n");
  }
  testing::CollectorProcess collector =
      testing::StartCollector(dir.path(), absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                                                       dir.path(), R"yaml(/cache.sqlite
node: {name: node-00, region: europe-west3, zone: europe-west3-a, location: DE}
poll: {interval: 30s, forecast_horizon: 24h}
providers:
  - {type: replay, locations: [DE, FR, FI, PL, SE-SE3]}
rtt:
  probe: {interval: 100ms, timeout: 2s, window: 20}
  static_matrix: gcp-inter-region-latency-ms.csv
  peers:
)yaml",
                                                       peers));
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  // A few probe rounds: answers without loss for the 15, losses for node-16 (which never
  // accepts). The 2 s timeout: an answer delayed while Chromium starts (a loaded machine) is
  // still an answer, not a loss; only the stuck peer's probes time out.
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const Json status = Json::parse(testing::HttpGet(collector.port, "/api/v1/status"), nullptr,
                                        /*allow_exceptions=*/false);
        if (status.is_discarded()) return false;
        int answered = 0;  // measured, without loss
        bool lossy = false;
        for (const Json& link : status["rtt"]) {
          if (link["method"] == "measured" && link["rtt_ms"].is_number() &&
              link["loss_ratio"] == 0) {
            ++answered;
          }
          if (link["target"] == "node-16" && link["loss_ratio"].is_number() &&
              link["loss_ratio"].get<double>() > 0) {
            lossy = true;
          }
        }
        return answered >= 15 && lossy;
      },
      absl::Seconds(30)))
      << testing::HttpGet(collector.port, "/api/v1/status");

  const std::string screenshot = std::filesystem::absolute("status_page_20_peers.png").string();
  const Json facts = ShownAt(absl::StrCat("http://127.0.0.1:", collector.port, "/"), screenshot);
  ASSERT_FALSE(facts.is_null());
  EXPECT_TRUE(facts["errors"].empty()) << facts["errors"];
  EXPECT_EQ(facts["title"], "carbonroute-collector status");
  EXPECT_EQ(facts["lang"], "en");

  // The matrix: this collector's row, 20 targets, each cell with its words.
  EXPECT_EQ(facts["rows"], Json::array({"node-00"}));
  ASSERT_EQ(facts["columns"].size(), 20u) << facts["columns"];
  ASSERT_EQ(facts["cells"].size(), 20u);
  int measured = 0, declared = 0, lossy = 0;
  for (const Json& cell : facts["cells"]) {
    const std::string classes = cell["classes"];
    const std::string text = cell["text"];
    const std::string words = cell["title"];
    ASSERT_FALSE(words.empty()) << cell;  // every colour has words
    EXPECT_THAT(words, HasSubstr("node-00 → "));
    if (absl::StrContains(classes, "declared")) {
      ++declared;
      EXPECT_THAT(text, ::testing::StartsWith("≈")) << cell;
      EXPECT_THAT(words, HasSubstr("ms declared"));
    } else if (absl::StrContains(classes, "loss")) {
      ++lossy;
      EXPECT_THAT(text, HasSubstr("⚠")) << cell;
      EXPECT_THAT(words, HasSubstr("lost"));
    } else {
      ++measured;
      EXPECT_THAT(words, HasSubstr("ms measured")) << cell;
      EXPECT_NE(cell["background"], "rgba(0, 0, 0, 0)") << cell;  // coloured by RTT
    }
  }
  EXPECT_EQ(measured, 15);
  EXPECT_EQ(declared, 4);
  EXPECT_EQ(lossy, 1);
  EXPECT_THAT(facts["summary"].get<std::string>(), HasSubstr("1 sources × 20 targets"));
  EXPECT_FALSE(facts["matrixHidden"].get<bool>());
  EXPECT_EQ(facts["legend"].size(), 10u) << facts["legend"];  // 7 RTT classes, loss, declared, none
  EXPECT_THAT(facts["legend"], Contains("⚠ probes lost"));
  EXPECT_TRUE(facts["legendSwatchesHidden"]);

  // Carbon: five locations, each with its value, a forecast sparkline in words, its age.
  ASSERT_EQ(facts["carbon"].size(), 5u) << facts["carbon"];
  for (const Json& row : facts["carbon"]) {
    EXPECT_EQ(row["cells"][1], "replay");
    EXPECT_EQ(row["cells"][6], "ok") << row;
    EXPECT_THAT(row["sparkline"].get<std::string>(), HasSubstr("forecast next 24 h from")) << row;
    EXPECT_EQ(row["sparklineRole"], "img");
  }
  EXPECT_EQ(facts["carbon"][0]["location"], "DE");
  EXPECT_THAT(facts["links"], Contains("metrics"));

  // Accessibility: captions, header scopes, and the keyboard path with a visible focus.
  for (const Json& length : facts["captions"]) EXPECT_GT(length.get<int>(), 20);
  EXPECT_TRUE(facts["headerScopes"]);
  ASSERT_GE(facts["focused"].size(), 2u);
  EXPECT_EQ(facts["focused"][0]["id"], "pause") << facts["focused"];
  EXPECT_TRUE(facts["focused"][0]["outline"]);
  EXPECT_EQ(facts["focused"][1]["role"], "region") << facts["focused"];
  EXPECT_TRUE(facts["pausedByKeyboard"]);

  // 100 × 100 peers: every cell drawn, well within a refresh (a figure, not a
  // timing goal: bench/README.md keeps the measured value).
  EXPECT_EQ(facts["render100ms"]["cells"], 10000);
  std::cout << "status page: 100 x 100 drawn in "
            << facts["render100ms"]["milliseconds"].get<double>() << " ms; screenshot "
            << screenshot << "\n";
  EXPECT_TRUE(std::filesystem::exists(screenshot));
}

TEST_F(StatusPage, LoadsOverTlsWithBasicAuthAsTheWebConfigSays) {
  testing::ScopedTempDir& dir = dir_;
  testing::MakeTestCertificates(dir.path());
  const std::string web_config = dir.path() + "/web.yml";
  std::ofstream(web_config)
      << "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
      << "basic_auth_users:\n  viewer: " << testing::BcryptHash("s3cret pass") << "\n";
  testing::CollectorProcess collector =
      testing::LaunchCollector(dir.path(),
                               absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir.path(),
                                            "/cache.sqlite\nnode: {name: tls-node, location: DE}\n"
                                            "providers: [{type: replay, locations: [DE]}]\n"),
                               "collector.log", {"--web.config.file", web_config});
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  const std::string url = absl::StrCat("https://127.0.0.1:", collector.port, "/");
  // The page and its data both come through the browser's credentials and TLS.
  const Json facts = ShownAt(url, dir.path() + "/tls.png", "viewer:s3cret pass");
  ASSERT_FALSE(facts.is_null());
  EXPECT_TRUE(facts["errors"].empty()) << facts["errors"];
  ASSERT_EQ(facts["carbon"].size(), 1u);
  EXPECT_EQ(facts["carbon"][0]["location"], "DE");
  // This collector probes and declares no peer: one line says so, no empty box.
  EXPECT_TRUE(facts["matrixHidden"].get<bool>());
  EXPECT_THAT(facts["summary"].get<std::string>(), HasSubstr("No RTT yet: no peer is probed"));
  // Without the password: 401, the page is never shown.
  EXPECT_EQ(testing::Shell(absl::StrCat("curl -sk -o /dev/null -w '%{http_code}' ", url)).output,
            "401");
}

}  // namespace
}  // namespace carbonroute
