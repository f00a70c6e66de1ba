#include "test/cluster/cluster_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/testing/build_paths.h"
#include "test/testing/subprocess.h"

namespace carbonroute::testing {

std::string PodYaml(const std::string& namespace_name, const std::string& name,
                    const std::string& scheduler_name,
                    const std::map<std::string, std::string>& labels,
                    const std::map<std::string, std::string>& annotations) {
  std::string yaml = absl::StrCat("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ", name,
                                  "\n  namespace: ", namespace_name, "\n  labels: {");
  for (const auto& [key, value] : labels)
    absl::StrAppend(&yaml, "\"", key, "\": \"", value, "\", ");
  absl::StrAppend(&yaml, "}\n  annotations: {");
  for (const auto& [key, value] : annotations) {
    absl::StrAppend(&yaml, "\"", key, "\": \"", value, "\", ");
  }
  absl::StrAppend(&yaml, "}\nspec:\n  schedulerName: ", scheduler_name,
                  "\n  containers:\n    - name: work\n      image: busybox\n"
                  "      resources: {requests: {cpu: 100m, memory: 128Mi}}\n");
  return yaml;
}

std::string Field(const RealControlPlane& plane, const std::string& object,
                  const std::string& namespace_name, const std::string& jsonpath) {
  absl::StatusOr<std::string> value = plane.Kubectl(
      absl::StrCat("get ", object, " -n ", namespace_name, " -o jsonpath='", jsonpath, "'"));
  return value.ok() ? *value : "";
}

std::string EventsOf(const RealControlPlane& plane, const std::string& namespace_name,
                     const std::string& kind, const std::string& name) {
  absl::StatusOr<std::string> events = plane.Kubectl(
      absl::StrCat("get events -n ", namespace_name, " --field-selector involvedObject.kind=", kind,
                   ",involvedObject.name=", name,
                   " -o jsonpath='{range .items[*]}{.reason}: {.message}{\"\\n\"}{end}'"));
  return events.ok() ? *events : "";
}

double SeriesValue(const std::string& page, const std::vector<std::string>& parts) {
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (absl::StartsWith(line, "#")) continue;
    bool all = true;
    for (const std::string& part : parts) all = all && absl::StrContains(line, part);
    double value = 0;
    if (all && absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) return value;
  }
  return std::nan("");
}

std::vector<std::string> SchedulerLite(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {CARBONROUTE_SCHEDULER_LITE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data"));
  return argv;
}

CollectorProcess StartCarbonRole(const RealControlPlane& plane, const std::string& dir,
                                 GridValues grid, int port, const std::string& log_name) {
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-carbon");
  if (!kubeconfig.ok()) {
    ADD_FAILURE() << kubeconfig.status();
    return {};
  }
  return StartCollector(dir,
                        absl::StrFormat(R"yaml(
listen_address: 127.0.0.1:%d
database: ":memory:"
node: {name: carbon-0}
rtt:
  discovery:
    kubernetes: {kubeconfig: %s}
  peer_selection: {mode: none}
providers: [{type: static, values: {BE: %g, DE: %g, FR: %g}}]
)yaml",
                                        port, *kubeconfig, grid.belgium, grid.germany, grid.france),
                        log_name);
}

std::string Readiness(const RealControlPlane& plane, const std::string& namespace_name,
                      const std::string& workload) {
  return Field(plane, workload, namespace_name,
               absl::StartsWith(workload, "daemonset/")
                   ? "{.status.numberReady}/{.status.desiredNumberScheduled}"
                   : "{.status.readyReplicas}/{.spec.replicas}");
}

absl::StatusOr<std::string> RenderChart(const RealControlPlane& plane, const std::string& args) {
  return plane.Helm(absl::StrCat("template carbonroute ", CARBONROUTE_SOURCE_DIR,
                                 "/deploy/helm/carbonroute --namespace carbonroute ", args));
}

std::string ConfigMapFile(const std::string& rendered, const std::string& key) {
  const std::string header = absl::StrCat("\n  ", key, ": |\n");
  const size_t start = rendered.find(header);
  if (start == std::string::npos) return "";
  std::string file;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(rendered).substr(start + header.size()), '\n')) {
    if (!line.empty() && !absl::StartsWith(line, "    ")) break;
    absl::StrAppend(&file, line.empty() ? line : line.substr(4), "\n");
  }
  return std::string(absl::StripTrailingAsciiWhitespace(file)) + "\n";
}

std::unique_ptr<Subprocess> StartServe(const RealControlPlane& plane, const std::string& dir,
                                       int port, int collector_port,
                                       const std::vector<std::string>& extra) {
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-extender");
  EXPECT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  std::vector<std::string> argv = {
      CARBONROUTE_SCHEDULER_LITE_BINARY,
      "serve",
      absl::StrCat("--web.listen-address=127.0.0.1:", port),
      "--refresh=1s",
      "--kubeconfig=" + kubeconfig.value_or(""),
      absl::StrCat("--metrics=http://127.0.0.1:", collector_port, "/metrics"),
      absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto serve = std::make_unique<Subprocess>(argv, dir + "/serve.log");
  EXPECT_TRUE(WaitFor([&] { return absl::StrContains(HttpGet(port, "/healthz"), "3 locations"); },
                      absl::Seconds(60)))
      << serve->Log() << HttpGet(port, "/healthz");
  return serve;
}

std::string ShippedSchedulerConfig(const RealControlPlane& plane, int port, bool node_cache_capable,
                                   bool ignorable) {
  const std::string shipped = Field(plane, "configmap carbonroute-scheduler-config", "carbonroute",
                                    "{.data.scheduler-config\\.yaml}");
  constexpr char kShippedUrl[] = "http://carbonroute-extender.carbonroute.svc:8888";
  EXPECT_THAT(shipped, ::testing::HasSubstr(absl::StrCat("urlPrefix: \"", kShippedUrl, "\"")));
  EXPECT_THAT(shipped, ::testing::HasSubstr("leaderElect: true"));
  EXPECT_THAT(shipped, ::testing::HasSubstr("nodeCacheCapable: true"));
  EXPECT_THAT(shipped, ::testing::HasSubstr("ignorable: true"));
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-scheduler");
  EXPECT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  return absl::StrCat(
      absl::StrReplaceAll(
          shipped,
          {{kShippedUrl, absl::StrCat("http://127.0.0.1:", port)},
           {"leaderElect: true", "leaderElect: false"},
           {"nodeCacheCapable: true",
            absl::StrCat("nodeCacheCapable: ", node_cache_capable ? "true" : "false")},
           {"ignorable: true", absl::StrCat("ignorable: ", ignorable ? "true" : "false")}}),
      "clientConnection: {kubeconfig: \"", kubeconfig.value_or(""), "\"}\n");
}

}  // namespace carbonroute::testing
