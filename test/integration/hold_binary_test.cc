// scheduler-lite hold, the real binary, against the fake Kubernetes API (over
// HTTP) and a fake collector whose forecast has one point per second: 200
// held Jobs, each released at its own best second.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "contract/forecast_api.h"
#include "net/http_server.h"
#include "net/url.h"
#include "test/testing/build_paths.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;

constexpr int kDirtySeconds = 6;  // the forecast's first seconds: never the best
constexpr int kForecastSeconds = 60;

double Intensity(const std::string& location, int second) {
  if (second < kDirtySeconds) return 900;
  const int salt = location == "DE" ? 7 : 11;
  return 100 + ((second * salt + 3) % 13) * 10;
}

// The best start for a run of `runtime` seconds that ends by `deadline`
// seconds after `base`, over DE and FR, whole seconds from the dirty prefix.
std::pair<int, double> BestSecond(int runtime, int deadline) {
  int best_start = -1;
  double best = INFINITY;
  for (const std::string location : {"DE", "FR"}) {
    for (int s = kDirtySeconds; s + runtime <= deadline; ++s) {
      double sum = 0;
      for (int i = 0; i < runtime; ++i) sum += Intensity(location, s + i);
      if (sum / runtime < best || (sum / runtime == best && s < best_start)) {
        best = sum / runtime;
        best_start = s;
      }
    }
  }
  return {best_start, best};
}

// A collector's forecast API with one point per second from `*base` (Unix
// seconds, read at each request: a test sets it once hold is up) for DE and
// FR, and its /metrics naming them.
absl::StatusOr<std::unique_ptr<net::HttpServer>> StartFakeCollector(
    std::shared_ptr<std::atomic<int64_t>> base_seconds) {
  // The fake collector: forecast API and the carbon series of two locations.
  net::HttpServerOptions collector;
  collector.listen_address = "127.0.0.1:0";
  collector.routes[forecast_api::kPath] = [base_seconds](const net::HttpServerRequest& request) {
    const absl::Time base = absl::FromUnixSeconds(base_seconds->load());
    const std::string location = net::QueryParameter(request.query, "location").value_or("");
    net::HttpServerResponse response;
    if (location != "DE" && location != "FR") {
      response.status = 404;
      response.body = forecast_api::EncodeError("no such location");
      return response;
    }
    ForecastAnswer answer{location, {{"fake", EmissionsType::kAverage, {}}}};
    for (int s = 0; s < kForecastSeconds; ++s) {
      answer.series[0].points.push_back(
          {base + absl::Seconds(s), base + absl::Seconds(s + 1), Intensity(location, s)});
    }
    response.content_type = "application/json";
    response.body = forecast_api::EncodeAnswer(answer);
    return response;
  };
  collector.routes["/metrics"] = [](const net::HttpServerRequest&) {
    net::HttpServerResponse response;
    for (const char* location : {"DE", "FR"}) {
      absl::StrAppend(&response.body,
                      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{location=\"", location,
                      "\",provider=\"fake\",emissions_type=\"average\"} 100\n");
    }
    return response;
  };
  return net::HttpServer::Start(std::move(collector));
}

// The windows (6 to 20 s after `base`) start once hold watches the Jobs: however long it
// took to start (a sanitizer build on a busy machine), no window has begun to pass.
TEST(HoldBinary, TwoHundredJobsEachReleasedWithinASecondOfItsBestStart) {
  testing::ScopedTempDir dir;
  auto base_seconds = std::make_shared<std::atomic<int64_t>>(absl::ToUnixSeconds(absl::Now()));
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server = StartFakeCollector(base_seconds);
  ASSERT_TRUE(server.ok()) << server.status();

  testing::FakeBatchApi api([] { return absl::Now(); });
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&api);
  testing::Subprocess hold(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "hold", "--kube-api-url", kube.base_url(), "--collector",
       absl::StrCat("http://127.0.0.1:", (*server)->port()), "--web.listen-address", "127.0.0.1:0",
       "--resync", "2s", "--data-dir", absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir.File("hold.log"));
  ASSERT_TRUE(kube.AwaitWatches(2, absl::Seconds(60))) << hold.Log();  // Jobs and Pods

  // From the next whole second: the forecast's first point and the Jobs' creation.
  const absl::Time base = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) + 1);
  base_seconds->store(absl::ToUnixSeconds(base));
  std::map<std::string, std::pair<int, double>> expected;  // job → best second, mean
  for (int i = 0; i < 200; ++i) {
    const int runtime = 1 + i % 3, deadline = 10 + i % 11;
    const std::string name = absl::StrCat("job-", i);
    api.AddJob("batch", name, base,
               {{"carbonroute.io/expected-runtime", absl::StrCat(runtime, "s")},
                {"carbonroute.io/deadline", absl::StrCat(deadline, "s")}});
    expected[name] = BestSecond(runtime, deadline);
  }
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        for (const auto& [name, best] : expected) {
          if (api.Get("jobs", "batch", name)["spec"]["suspend"] != false) return false;
        }
        return true;
      },
      absl::Seconds(60)))
      << hold.Log();
  EXPECT_EQ(hold.Terminate(), 0) << hold.Log();
  ASSERT_LT(absl::Now() - base, absl::Seconds(kDirtySeconds + 30));

  // Each release arrived at or after its best start, never before. How late
  // is a figure (recorded, ~10 ms on an idle machine), not a test margin: a
  // busy machine may delay a release, and the intensity then recorded covers
  // a window that starts that much later.
  absl::Duration worst = absl::ZeroDuration();
  std::map<std::string, absl::Duration> delay;
  for (const testing::FakeApiCall& call : api.calls()) {
    if (call.method != "PATCH" || !absl::StrContains(call.body, "\"suspend\":false")) continue;
    const std::string name = call.target.substr(call.target.rfind('/') + 1);
    const absl::Time start = base + absl::Seconds(expected.at(name).first);
    EXPECT_GE(call.at, start) << name;
    delay[name] = call.at - start;
    worst = std::max(worst, call.at - start);
  }
  RecordProperty("worst_release_delay_ms", static_cast<int>(absl::ToInt64Milliseconds(worst)));
  for (const auto& [name, best] : expected) {
    const nlohmann::json job = api.Get("jobs", "batch", name);
    EXPECT_EQ(job["metadata"]["annotations"]["carbonroute.io/release-reason"], "window") << name;
    // On time: exactly the best mean. Late by d: each second of the run's
    // window moved by d/runtime, to a value at most kSwing higher.
    constexpr double kSwing = 120;  // Intensity() spans 100..220 after the dirty seconds
    const int runtime = 1 + std::stoi(name.substr(4)) % 3;
    double at_release = 0;
    ASSERT_TRUE(absl::SimpleAtod(
        job["metadata"]["annotations"]["carbonroute.io/intensity-at-release"].get<std::string>(),
        &at_release))
        << name;
    EXPECT_GE(at_release, best.second - 0.05) << name;
    EXPECT_LE(at_release,
              best.second + 0.05 + kSwing * absl::ToDoubleSeconds(delay[name]) / runtime)
        << name;
  }
  EXPECT_THAT(hold.Log(), HasSubstr("holding objects selected by carbonroute.io/defer=true"));
}

// Between lists (--resync 10m) a watch sees a new Job: it is planned at once.
TEST(HoldBinary, AJobCreatedWhileRunningIsSeenByTheWatchNotAtTheNextList) {
  testing::ScopedTempDir dir;
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      StartFakeCollector(std::make_shared<std::atomic<int64_t>>(absl::ToUnixSeconds(absl::Now())));
  ASSERT_TRUE(server.ok()) << server.status();
  testing::FakeBatchApi api([] { return absl::Now(); });
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&api);
  testing::Subprocess hold(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "hold", "--kube-api-url", kube.base_url(), "--collector",
       absl::StrCat("http://127.0.0.1:", (*server)->port()), "--web.listen-address", "127.0.0.1:0",
       "--resync", "10m", "--data-dir", absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir.File("hold.log"));
  ASSERT_TRUE(kube.AwaitWatches(2, absl::Seconds(20))) << hold.Log();  // Jobs and Pods
  api.AddJob("batch", "late-comer", absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now())),
             {{"carbonroute.io/expected-runtime", "1s"}, {"carbonroute.io/deadline", "50s"}});
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return api.Get("jobs", "batch", "late-comer")["metadata"]["annotations"].contains(
                   "carbonroute.io/release-at") ||
               api.Get("jobs", "batch", "late-comer")["spec"]["suspend"] == false;
      },
      absl::Seconds(30)))
      << hold.Log();
  int lists = 0;
  for (const testing::FakeApiCall& call : api.calls()) {
    lists += call.method == "GET" && absl::StartsWith(call.target, "/apis/batch/v1/jobs?") &&
             !absl::StrContains(call.target, "watch=true");
  }
  EXPECT_GE(lists, 2);  // the first list, and one the watch's event asked for
  EXPECT_EQ(hold.Terminate(), 0) << hold.Log();
}

// A user's workstation: a kubeconfig with a client certificate (paths
// relative to the kubeconfig), an API server that requires it (mutual TLS),
// hold started from a directory outside the tree with --kubeconfig.
TEST(HoldBinary, KubeconfigWithAClientCertificateAgainstMutualTls) {
  testing::ScopedTempDir dir;
  const testing::TestCertificates pki = testing::MakeTestCertificates(dir.path());
  const absl::Time base = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()));
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      StartFakeCollector(std::make_shared<std::atomic<int64_t>>(absl::ToUnixSeconds(base)));
  ASSERT_TRUE(server.ok()) << server.status();
  testing::FakeBatchApi api([] { return absl::Now(); });
  api.AddJob("batch", "nightly", base,
             {{"carbonroute.io/expected-runtime", "1s"}, {"carbonroute.io/deadline", "12s"}});
  testing::FakeKubeApiServer kube(pki.server_cert_file, pki.server_key_file);
  kube.RequireClientCertificates(pki.ca_file);
  kube.ServeBatchApi(&api);
  std::filesystem::create_directories(dir.File("home/.kube"));
  for (const auto& [from, to] :
       {std::pair{pki.ca_file, "ca.crt"}, std::pair{pki.client_cert_file, "me.crt"},
        std::pair{pki.client_key_file, "me.key"}}) {
    std::filesystem::copy_file(from, dir.File(absl::StrCat("home/.kube/", to)));
  }
  std::ofstream(dir.File("home/.kube/config"))
      << "apiVersion: v1\nkind: Config\ncurrent-context: wrong\n"
      << "clusters:\n- name: fake\n  cluster:\n    server: " << kube.base_url()
      << "\n    certificate-authority: ca.crt\n"
      << "users:\n- name: me\n  user: {client-certificate: me.crt, client-key: me.key}\n"
      << "contexts:\n- name: fake\n  context: {cluster: fake, user: me}\n"
      << "- name: wrong\n  context: {cluster: nowhere, user: me}\n";
  testing::Subprocess hold({"/usr/bin/env",
                            "-C",
                            dir.path(),
                            "-u",
                            "KUBECONFIG",
                            "-u",
                            "KUBERNETES_SERVICE_HOST",
                            CARBONROUTE_SCHEDULER_LITE_BINARY,
                            "hold",
                            "--kubeconfig",
                            "home/.kube/config",
                            "--kube-context",
                            "fake",
                            "--collector",
                            absl::StrCat("http://127.0.0.1:", (*server)->port()),
                            "--web.listen-address",
                            "127.0.0.1:0",
                            "--resync",
                            "2s",
                            "--data-dir",
                            absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
                           dir.File("hold.log"));
  EXPECT_TRUE(testing::WaitFor(
      [&] { return api.Get("jobs", "batch", "nightly")["spec"]["suspend"] == false; },
      absl::Seconds(40)))
      << hold.Log();
  EXPECT_EQ(hold.Terminate(), 0) << hold.Log();
  EXPECT_THAT(hold.Log(), HasSubstr("(kubeconfig home/.kube/config, context fake)"));
  ASSERT_FALSE(kube.requests().empty());
  for (const testing::KubeApiRequest& request : kube.requests()) {
    EXPECT_EQ(request.client_cn, "carbonroute-test-client") << request.target;
  }
  // Without --kube-context the current context names a cluster that is not there.
  const testing::ShellRun wrong = testing::Shell(
      absl::StrCat("cd ", dir.path(), " && env -u KUBECONFIG ", CARBONROUTE_SCHEDULER_LITE_BINARY,
                   " hold --kubeconfig home/.kube/config --web.listen-address 127.0.0.1:0 2>&1"));
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("context \"wrong\" names cluster \"nowhere\", which is "
                                      "not there (clusters: fake)"));
}

TEST(HoldBinary, MistakesExit2NamingTheFlag) {
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--kube-api-url localhost:8001", "--kube-api-url"},
           {"--collector collector:9464 --kube-api-url http://127.0.0.1:1", "--collector"},
           {"--resync soon --kube-api-url http://127.0.0.1:1", "--resync"},
           {"--watch-timeout 500ms --kube-api-url http://127.0.0.1:1",
            "--watch-timeout: expected a duration of at least 1s"},
           {"--watch-timeout forever --kube-api-url http://127.0.0.1:1", "got \"forever\""},
           {"--selector '' --kube-api-url http://127.0.0.1:1", "--selector"},
           {"--kube-api-urll http://x", "--kube-api-url"},
       }) {
    const testing::ShellRun run =
        testing::Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " hold ", args, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr(message)) << args;
  }
  // Not in a Pod and no --kube-api-url: a start-up failure (exit 1, as the collector's) that
  // says what to give.
  const testing::ShellRun outside = testing::Shell(absl::StrCat(
      "env -u KUBERNETES_SERVICE_HOST -u KUBERNETES_SERVICE_PORT -u KUBECONFIG HOME=/nonexistent ",
      CARBONROUTE_SCHEDULER_LITE_BINARY, " hold --web.listen-address 127.0.0.1:0 2>&1"));
  EXPECT_EQ(outside.exit_code, 1) << outside.output;
  EXPECT_THAT(outside.output, HasSubstr("give --kubeconfig FILE or --kube-api-url URL"));
  // A typo'd kubeconfig path is named.
  const testing::ShellRun typo = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " hold --kubeconfig /nonexistent/kubeconfg 2>&1"));
  EXPECT_EQ(typo.exit_code, 2) << typo.output;
  EXPECT_THAT(typo.output, HasSubstr("kubeconfig /nonexistent/kubeconfg: no such file"));
}

}  // namespace
}  // namespace carbonroute
