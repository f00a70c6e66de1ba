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
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"

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

// The carbon role's collector (carbonroute-collector, static provider) with node discovery
// through the API, as the ServiceAccount carbonroute/carbonroute-carbon.
CollectorProcess StartCarbonRole(const RealControlPlane& plane, const std::string& dir);

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

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_CLUSTER_CLUSTER_TEST_SUPPORT_H_
