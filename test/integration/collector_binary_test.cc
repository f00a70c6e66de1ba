// Integration test (a): the real collector binary on loopback, scraped over
// HTTP, its values compared with the shipped CSV.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "contract/metric_names.h"
#include "model_sources/exposition_parser.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"
#include "test/testing/trace_csv.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;

const std::vector<std::string> kZones = {"BE", "DE", "FR", "PL", "SE-SE3", "US-CAL-CISO"};

std::string ConfigFor(const std::string& dir) {
  return absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                      dir, R"yaml(/collector.sqlite
node: {name: itest-node, region: europe-west1, location: BE}
poll: {interval: 60s, forecast_horizon: 24h}
providers:
  - {type: replay, locations: [BE, DE, FR, PL, SE-SE3, US-CAL-CISO]}
  - {type: static, name: ppa, values: {onprem: 12.5}}
)yaml");
}

int RunShell(const std::string& command, std::string* output) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CollectorBinary, ExportsTheCsvValuesAndStopsCleanly) {
  testing::ScopedTempDir temp_dir;  // collector_binary
  const std::string& dir = temp_dir.path();
  const testing::TraceCsv csv;
  const absl::Time before = absl::Now();
  testing::CollectorProcess collector = testing::StartCollector(dir, ConfigFor(dir));
  ASSERT_GT(collector.port, 0) << collector.process->Log();

  const std::string page = testing::HttpGet(collector.port, "/metrics");
  const absl::Time after = absl::Now();
  absl::StatusOr<model_sources::Exposition> exposition = model_sources::ParseExposition(page);
  ASSERT_THAT(exposition, IsOk());

  std::map<std::string, double> exported;
  for (const model_sources::Sample& sample : exposition->samples) {
    if (sample.name == metric_names::kCarbonIntensity)
      exported[sample.Label("location")] = sample.value;
  }
  ASSERT_EQ(exported.size(), kZones.size() + 1) << page;
  for (const std::string& zone : kZones) {
    // The scrape may straddle an hour boundary: either hour's value is right.
    EXPECT_THAT(exported[zone],
                ::testing::AnyOf(csv.ServedAt(before, zone), csv.ServedAt(after, zone)))
        << zone;
  }
  EXPECT_EQ(exported["onprem"], 12.5);
  EXPECT_THAT(page, HasSubstr("carbonroute_node_info{location=\"BE\",node=\"itest-node\",region="
                              "\"europe-west1\",zone=\"\"} 1"));
  EXPECT_THAT(page, HasSubstr("window=\"24h\""));
  // The conventions of Prometheus exporters: build info and the process metrics.
  EXPECT_THAT(page, HasSubstr("carbonroute_build_info{branch="));
  for (const char* process :
       {"process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
        "process_max_fds ", "process_start_time_seconds ", "process_virtual_memory_bytes "}) {
    EXPECT_THAT(page, HasSubstr(std::string("\n") + process)) << process;
  }
  // The root is the status page; its data links the others, as every exporter's root.
  const std::string root = testing::HttpGet(collector.port, "/");
  EXPECT_THAT(root, HasSubstr("<title>carbonroute status</title>"));
  EXPECT_THAT(testing::HttpGet(collector.port, "/api/v1/status"),
              HasSubstr(R"({"path":"/metrics","description":)"));

  // promtool (Debian package prometheus) lints the exposition: no finding at all.
  std::ofstream(dir + "/metrics.txt") << page;
  std::string lint;
  ASSERT_EQ(RunShell("promtool check metrics < " + dir + "/metrics.txt 2>&1", &lint), 0) << lint;
  EXPECT_EQ(lint, "");

  // SIGTERM: exit 0, and SQLite closed cleanly (the WAL is checkpointed and removed).
  EXPECT_EQ(collector.process->Terminate(), 0) << collector.process->Log();
  EXPECT_FALSE(std::filesystem::exists(dir + "/collector.sqlite-wal"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/collector.sqlite"));

  // A restart within the same hour reuses the file: zero provider calls.
  testing::CollectorProcess restarted = testing::StartCollector(dir, ConfigFor(dir), "restart.log");
  ASSERT_GT(restarted.port, 0) << restarted.process->Log();
  const std::string restarted_page = testing::HttpGet(restarted.port, "/metrics");
  if (absl::ToCivilHour(absl::Now(), absl::UTCTimeZone()) ==
      absl::ToCivilHour(before, absl::UTCTimeZone())) {
    EXPECT_THAT(restarted.process->Log(), HasSubstr("0 provider calls (0 failed), 7 cache hits"));
    EXPECT_THAT(restarted_page, Not(HasSubstr("carbonroute_provider_requests_total{")));
    EXPECT_THAT(restarted_page, HasSubstr("carbonroute_cache_lookups_total{outcome=\"hit\"} 7"));
  }
  EXPECT_EQ(restarted.process->Terminate(), 0);
}

// TCP probes to closed loopback ports: each answers with an RST, which counts
// as reachable, so the probe series appear without any ICMP privilege.
std::string ProbingConfig(const std::vector<std::string>& peers) {
  std::string yaml = absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: ":memory:"
node: {name: itest-node}
providers: [{type: static, values: {DE: 300}}]
rtt:
  probe: {interval: 100ms, timeout: 500ms}
  peers:
)yaml");
  for (const std::string& peer : peers) {
    absl::StrAppend(&yaml, "    - {name: ", peer,
                    ", address: 127.0.0.1, protocol: tcp, port: ", testing::FreeLoopbackPort(),
                    "}\n");
  }
  return yaml;
}

// A Node as the API returns it, with the labels discovery reads.
std::string NodeJson(const std::string& name, const std::string& address, const std::string& region,
                     const std::string& zone) {
  return absl::StrCat(
      R"({"metadata":{"name":")", name, R"(","labels":{"topology.kubernetes.io/region":")", region,
      R"(","topology.kubernetes.io/zone":")", zone, R"("}},)",
      R"("status":{"addresses":[{"type":"InternalIP","address":")", address, R"("}]}})");
}

TEST(CollectorBinary, ProbesTheNodesTheKubernetesApiListsAndDropsADeletedOne) {
  testing::ScopedTempDir temp_dir;
  testing::FakeKubeApiServer api;  // plain HTTP, as kubectl proxy serves
  api.SetNodes({NodeJson("itest-node", "127.0.0.1", "europe-west1", "europe-west1-b"),
                NodeJson("peer-a", "127.0.0.2", "europe-west1", "europe-west1-c"),
                NodeJson("peer-b", "127.0.0.3", "us-central1", "us-central1-a")},
               "7");
  const std::string config = absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: ":memory:"
node: {name: itest-node}
providers: [{type: static, values: {BE: 150}}]
rtt:
  probe: {interval: 100ms, timeout: 500ms}
  discovery:
    kubernetes: {api_url: ")yaml",
                                          api.base_url(), R"yaml(", protocol: tcp, port: )yaml",
                                          testing::FreeLoopbackPort(), R"yaml(}
)yaml");
  testing::CollectorProcess collector = testing::StartCollector(temp_dir.path(), config);
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  auto page = [&] { return testing::HttpGet(collector.port, "/metrics"); };
  auto measured = [&](const std::string& name) {
    return page().find(absl::StrCat(R"(carbonroute_rtt_seconds{method="measured",)",
                                    R"(source="itest-node",target=")", name, "\"}")) !=
           std::string::npos;
  };
  ASSERT_TRUE(
      testing::WaitFor([&] { return measured("peer-a") && measured("peer-b"); }, absl::Seconds(20)))
      << page() << collector.process->Log();
  // Its own Node gave the region and zone; the region map gave the grid location.
  EXPECT_THAT(page(), HasSubstr(R"(carbonroute_node_info{location="BE",node="itest-node",)"
                                R"(region="europe-west1",zone="europe-west1-b"} 1)"));
  EXPECT_THAT(page(), Not(HasSubstr(R"(target="itest-node")")));  // never itself
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return page().find(R"(carbonroute_zone_rtt_seconds{source_zone="europe-west1-b",)"
                           R"(target_zone="us-central1-a"})") != std::string::npos;
      },
      absl::Seconds(20)))
      << page();

  api.SendEvent(absl::StrCat(R"({"type":"DELETED","object":)",
                             NodeJson("peer-b", "127.0.0.3", "us-central1", "us-central1-a"), "}"));
  ASSERT_TRUE(testing::WaitFor(
      [&] { return page().find(R"(target="peer-b")") == std::string::npos; }, absl::Seconds(20)))
      << page();
  EXPECT_TRUE(measured("peer-a"));
  EXPECT_EQ(collector.process->Terminate(), 0);
  EXPECT_THAT(collector.process->Log(), HasSubstr("kubernetes discovery: 3 Nodes, 2 probed"));
}

TEST(CollectorBinary, SighupReloadsThePeersAndDeletesTheSeriesOfRemovedOnes) {
  testing::ScopedTempDir temp_dir;  // collector_reload
  const std::string& dir = temp_dir.path();
  testing::CollectorProcess collector =
      testing::StartCollector(dir, ProbingConfig({"peer-a", "peer-b"}));
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  auto page = [&] { return testing::HttpGet(collector.port, "/metrics"); };
  auto probed = [&](const std::string& name) {
    return page().find(absl::StrCat("carbonroute_probe_sent_total{source=\"itest-node\",target=\"",
                                    name, "\"}")) != std::string::npos;
  };
  ASSERT_TRUE(
      testing::WaitFor([&] { return probed("peer-a") && probed("peer-b"); }, absl::Seconds(20)))
      << page();

  // peer-b leaves, peer-c joins (and peer-a, whose port changes, starts afresh).
  const std::string a_and_c = ProbingConfig({"peer-a", "peer-c"});
  std::ofstream(dir + "/collector.yaml") << a_and_c;
  collector.process->Signal(SIGHUP);
  ASSERT_TRUE(testing::WaitFor(
      [&] { return probed("peer-a") && probed("peer-c") && !probed("peer-b"); }, absl::Seconds(20)))
      << page();
  EXPECT_THAT(page(), Not(HasSubstr("target=\"peer-b\"")));  // every series, not just one

  // What a reload cannot change is named, not silently ignored (the same peers: nothing restarts).
  std::ofstream(dir + "/collector.yaml") << a_and_c << "  peer_selection: {mode: all}\n";
  collector.process->Signal(SIGHUP);
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return collector.process->Log().find(
                   "reload: rtt.peer_selection changed: only rtt.peers is reloaded") !=
               std::string::npos;
      },
      absl::Seconds(20)))
      << collector.process->Log();

  // A file that no longer loads changes nothing and is reported.
  std::string typo = ProbingConfig({"peer-a"});
  typo.replace(typo.find(", address: ") + 2, 8, "adress:");
  std::ofstream(dir + "/collector.yaml") << typo;
  collector.process->Signal(SIGHUP);
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return collector.process->Log().find("keeping the running configuration") !=
               std::string::npos;
      },
      absl::Seconds(20)));
  EXPECT_THAT(collector.process->Log(), HasSubstr("rtt.peers[0].adress: unknown key"));
  EXPECT_TRUE(probed("peer-a"));
  EXPECT_TRUE(probed("peer-c"));
  EXPECT_EQ(collector.process->Terminate(), 0) << collector.process->Log();
}

// The service manager's end of sd_notify(3): a datagram socket in the test's
// directory, as systemd passes one in NOTIFY_SOCKET.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_DGRAM, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof(address.sun_path) - 1);
    bound_ =
        fd_ >= 0 && ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool bound() const { return bound_; }
  // Reads messages until one contains `wanted`; returns it ("" after `timeout`).
  std::string WaitFor(const std::string& wanted, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    for (absl::Time now = absl::Now(); now < deadline; now = absl::Now()) {
      pollfd readable{fd_, POLLIN, 0};
      if (::poll(&readable, 1, static_cast<int>(absl::ToInt64Milliseconds(deadline - now))) <= 0) {
        continue;
      }
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) continue;
      std::string message(buffer, static_cast<std::size_t>(n));
      if (message.find(wanted) != std::string::npos) return message;
    }
    return "";
  }

 private:
  int fd_;
  bool bound_ = false;
};

TEST(CollectorBinary, TellsSystemdItIsReadyAliveAndReloading) {
  testing::ScopedTempDir temp_dir;  // collector_notify
  const std::string& dir = temp_dir.path();
  NotifySocket systemd(dir + "/notify");
  ASSERT_TRUE(systemd.bound());
  // The child inherits these; the test process itself sends nothing.
  ::setenv("NOTIFY_SOCKET", (dir + "/notify").c_str(), 1);
  ::setenv("WATCHDOG_USEC", "2000000", 1);  // WatchdogSec=2s: a ping every second
  // BE from two providers: 7 grid locations, 8 series.
  testing::CollectorProcess collector = testing::StartCollector(
      dir, ConfigFor(dir) + "  - {type: static, name: be-ppa, values: {BE: 10}}\n");
  ::unsetenv("NOTIFY_SOCKET");
  ::unsetenv("WATCHDOG_USEC");
  ASSERT_GT(collector.port, 0) << collector.process->Log();

  EXPECT_NE(systemd.WaitFor("READY=1", absl::Seconds(30)), "") << collector.process->Log();
  // After the first poll: every provider's series, none failing, and the keep-alive ping.
  const std::string alive = systemd.WaitFor("7 locations (8 series), 0 failing", absl::Seconds(30));
  EXPECT_THAT(alive, HasSubstr("WATCHDOG=1")) << collector.process->Log();
  EXPECT_THAT(collector.process->Log(), HasSubstr("systemd watchdog: telling systemd every 1s"));

  collector.process->Signal(SIGHUP);
  EXPECT_NE(systemd.WaitFor("RELOADING=1", absl::Seconds(30)), "");
  EXPECT_NE(systemd.WaitFor("READY=1", absl::Seconds(30)), "");
  EXPECT_EQ(collector.process->Terminate(), 0);
  EXPECT_NE(systemd.WaitFor("STOPPING=1", absl::Seconds(5)), "");
}

TEST(CollectorBinary, CheckConfigAcceptsTheExampleAndNamesBadKeys) {
  testing::ScopedTempDir temp_dir;  // check_config
  const std::string& dir = temp_dir.path();
  // The demo's configuration checks from any working directory (its database is relative
  // to it); a database whose directory does not exist is said (exit 3).
  std::string output;
  EXPECT_EQ(
      RunShell(absl::StrCat("cd ", dir, " && ", CARBONROUTE_COLLECTOR_BINARY, " --check-config ",
                            CARBONROUTE_SOURCE_DIR, "/config/examples/offline.yaml 2>&1"),
               &output),
      0)
      << output;
  EXPECT_THAT(output, HasSubstr("OK (2 providers)"));
  std::ofstream(dir + "/elsewhere.yaml")
      << "node: {name: n}\ndatabase: " << dir << "/no-such-dir/readings.sqlite\n"
      << "providers: [{type: replay, locations: [DE]}]\n";
  EXPECT_EQ(RunShell(absl::StrCat(CARBONROUTE_COLLECTOR_BINARY, " --check-config ", dir,
                                  "/elsewhere.yaml 2>&1"),
                     &output),
            3)
      << output;
  EXPECT_THAT(output, HasSubstr("database: the directory"));

  std::ofstream(dir + "/bad.yaml")
      << "node: {name: n}\nproviders: [{type: replay, locatoins: [DE]}]\n";
  output.clear();
  EXPECT_EQ(RunShell(absl::StrCat(CARBONROUTE_COLLECTOR_BINARY, " --check-config ", dir,
                                  "/bad.yaml 2>&1"),
                     &output),
            2);
  EXPECT_THAT(output, HasSubstr("providers[0].locatoins: unknown key"));
}

TEST(CollectorBinary, CheckConfigChecksWhatStartUpChecks) {
  // Each of these loads as YAML but would fail at start: --check-config must say so, with
  // exit 2 for a mistake and 3 for a credential that is not on this machine.
  struct Case {
    std::string providers, message;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {"providers: [{type: replay, trace: nope.csv, locations: [DE]}]",
       "data file \"nope.csv\" not found; tried:", 2},
      {"providers: [{type: replay, locations: [XX]}]", "location \"XX\" is not a zone", 2},
      {"providers: [{type: electricity_maps, token: {env: CARBONROUTE_TEST_UNSET_VAR}, "
       "locations: [DE]}]",
       "environment variable CARBONROUTE_TEST_UNSET_VAR is not set", 3},
      {"providers: [{type: watttime, username: {file: /nonexistent/user}, password: x, "
       "locations: [CAISO_NORTH]}]",
       "cannot read secret file \"/nonexistent/user\": No such file or directory", 3},
      {"providers: [{type: replay, locations: [DE]}]\nrtt: {static_matrix: nope.csv}",
       "rtt.static_matrix: data file \"nope.csv\" not found", 2},
  };
  testing::ScopedTempDir dir;
  for (const Case& c : cases) {
    std::ofstream(dir.File("c.yaml")) << "node: {name: n, region: europe-west1}\n"
                                      << c.providers << "\n";
    std::string output;
    EXPECT_EQ(RunShell(absl::StrCat(CARBONROUTE_COLLECTOR_BINARY, " --check-config ",
                                    dir.File("c.yaml"), " 2>&1"),
                       &output),
              c.exit_code)
        << c.providers;
    EXPECT_THAT(output, HasSubstr(c.message));
  }
}

// A file the configuration names is part of the configuration: missing, it is exit 2 before
// anything starts, as --check-config says (README "carbonroute-collector").
TEST(CollectorBinary, AMissingTraceIsAConfigurationErrorWithAClearMessage) {
  testing::ScopedTempDir temp_dir;  // missing_trace
  const std::string& dir = temp_dir.path();
  std::ofstream(dir + "/c2.yaml")
      << "listen_address: 127.0.0.1:0\ndatabase: " << dir
      << "/db.sqlite\nnode: {name: n}\nproviders: [{type: replay, trace: "
         "nope.csv, locations: [DE]}]\n";
  std::string output;
  EXPECT_EQ(RunShell(absl::StrCat(CARBONROUTE_COLLECTOR_BINARY, " --config ", dir, "/c2.yaml 2>&1"),
                     &output),
            2);
  EXPECT_THAT(output, HasSubstr("c2.yaml: provider \"replay\": data file \"nope.csv\" not found"));
}

}  // namespace
}  // namespace carbonroute
