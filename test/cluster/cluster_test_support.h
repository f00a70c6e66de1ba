// File: test/cluster/cluster_test_support.h
//
// What the cluster tier's tests share over the real control plane
// (test/testing/real_control_plane.h): Pods and Jobs written as YAML, reads
// through kubectl, and the carbon role's collector (static readings: Belgium
// 150, Germany 380, France 56 gCO2eq/kWh) running with the token of its
// shipped ServiceAccount, carbonroute/carbonroute-carbon.
// Thread safety: none (the tests' main thread).
#ifndef CARBONROUTE_TEST_CLUSTER_CLUSTER_TEST_SUPPORT_H_
#define CARBONROUTE_TEST_CLUSTER_CLUSTER_TEST_SUPPORT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/subprocess.h"

namespace carbonroute::testing {

inline constexpr double kBelgium = 150, kGermany = 380, kFrance = 56;  // gCO2eq/kWh

// A Pod of one container (requests: 100m CPU, 128Mi) for `scheduler_name`.
std::string PodYaml(const std::string& namespace_name, const std::string& name,
                    const std::string& scheduler_name,
                    const std::map<std::string, std::string>& labels = {},
                    const std::map<std::string, std::string>& annotations = {});

// A field of an object by a kubectl JSONPath ("" when kubectl fails or the field is absent).
std::string Field(const RealControlPlane& plane, const std::string& object,
                  const std::string& namespace_name, const std::string& jsonpath);

// Every Event's `reason: message` on the object `kind`/`name`, one a line.
std::string EventsOf(const RealControlPlane& plane, const std::string& namespace_name,
                     const std::string& kind, const std::string& name);

// The value of the first line of a Prometheus text page holding every one of `parts`
// (a metric name with "{", a label="value"); NaN when none does.
double SeriesValue(const std::string& page, const std::vector<std::string>& parts);

// argv of the built scheduler-lite: `args`, then --data-dir naming the repository's data/.
std::vector<std::string> SchedulerLite(const std::vector<std::string>& args);

// What the carbon role's static provider reads for each grid location, gCO2eq/kWh.
struct GridValues {
  double belgium = kBelgium, germany = kGermany, france = kFrance;
};

// The carbon role's collector (carbonroute-collector, static provider) with node discovery
// through the API, as the ServiceAccount carbonroute/carbonroute-carbon; on `port` (0: any free
// one; a fixed port lets a restart with other values keep its readers), logging to `log_name`.
CollectorProcess StartCarbonRole(const RealControlPlane& plane, const std::string& dir,
                                 GridValues grid = {}, int port = 0,
                                 const std::string& log_name = "carbon-role.log");

// "ready/desired" of `workload` ("daemonset/NAME" or "deployment/NAME") in `namespace_name`:
// a DaemonSet's Ready Pods of those it should run, a Deployment's ready replicas of its
// replicas; "" when kubectl fails.
std::string Readiness(const RealControlPlane& plane, const std::string& namespace_name,
                      const std::string& workload);

// `helm template carbonroute deploy/helm/carbonroute --namespace carbonroute ARGS` with the
// pinned Helm (the chart's objects as `helm install` would create them); kInternal on failure.
absl::StatusOr<std::string> RenderChart(const RealControlPlane& plane, const std::string& args);

// The text of the first ConfigMap entry `key: |` in rendered YAML, de-indented; "" when none.
std::string ConfigMapFile(const std::string& rendered, const std::string& key);

// `scheduler-lite serve` as the shipped Deployment runs it, with the ServiceAccount's token,
// reading the carbon role's collector directly (--metrics) every second; waits until its
// /healthz names the three locations.
std::unique_ptr<Subprocess> StartServe(const RealControlPlane& plane, const std::string& dir,
                                       int port, int collector_port,
                                       const std::vector<std::string>& extra = {});

// The shipped KubeSchedulerConfiguration, from the ConfigMap the manifests applied, with the
// extender at `port`, the two switches set, and the ServiceAccount's kubeconfig.
std::string ShippedSchedulerConfig(const RealControlPlane& plane, int port, bool node_cache_capable,
                                   bool ignorable);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_CLUSTER_CLUSTER_TEST_SUPPORT_H_
