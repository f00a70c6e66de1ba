// The Kubernetes manifests in deploy/kubernetes/: the extender configuration uses
// only KubeSchedulerConfiguration v1 Extender keys (k8s.io/kube-scheduler/config/v1,
// type Extender; https://kubernetes.io/docs/reference/config-api/kube-scheduler-config.v1/),
// and the examples opt in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "config/load_collector_config.h"
#include "providers/make_provider.h"
#include "test/testing/build_paths.h"
#include "test/testing/shell.h"
#include "test/testing/status_matchers.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"
#include "yaml-cpp/yaml.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<YAML::Node> Documents(const std::string& file) {
  return YAML::LoadAll(
      testing::ReadFile(std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/kubernetes/" + file));
}

// A container's args ("scheduler-lite", the subcommand, its flags) exist: the binary
// accepts them and stops at --help. A flag valued from the downward API ($(POD_NAME))
// gets a stand-in value.
void ExpectTheBinaryTakes(const std::vector<std::string>& args) {
  ASSERT_GE(args.size(), 2u);
  EXPECT_EQ(args[0], "scheduler-lite");
  std::string command = std::string(CARBONROUTE_SCHEDULER_LITE_BINARY);
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg.find("$(") != std::string::npos) arg = arg.substr(0, arg.find('=') + 1) + "x";
    command += " '" + arg + "'";
  }
  const testing::ShellRun help = testing::Shell(command + " --help 2>&1");
  EXPECT_EQ(help.exit_code, 0) << help.output;
}

YAML::Node FindKind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  for (const YAML::Node& doc : docs) {
    if (doc["kind"] && doc["kind"].as<std::string>() == kind) return doc;
  }
  return YAML::Node();
}

TEST(DeployManifests, ExtenderUsesTheV1FieldNames) {
  const YAML::Node config_map = FindKind(Documents("scheduler.yaml"), "ConfigMap");
  ASSERT_TRUE(config_map) << "no ConfigMap in scheduler.yaml";
  const YAML::Node config =
      YAML::Load(config_map["data"]["scheduler-config.yaml"].as<std::string>());
  EXPECT_EQ(config["apiVersion"].as<std::string>(), "kubescheduler.config.k8s.io/v1");
  EXPECT_EQ(config["kind"].as<std::string>(), "KubeSchedulerConfiguration");
  EXPECT_EQ(config["profiles"][0]["schedulerName"].as<std::string>(), "carbonroute");
  const std::set<std::string> v1_keys = {"urlPrefix",        "filterVerb",       "preemptVerb",
                                         "prioritizeVerb",   "weight",           "bindVerb",
                                         "enableHTTPS",      "tlsConfig",        "httpTimeout",
                                         "nodeCacheCapable", "managedResources", "ignorable"};
  ASSERT_EQ(config["extenders"].size(), 1u);
  const YAML::Node extender = config["extenders"][0];
  for (const auto& entry : extender) {
    EXPECT_TRUE(v1_keys.contains(entry.first.as<std::string>()))
        << "not a v1 Extender key: " << entry.first.as<std::string>();
  }
  EXPECT_EQ(extender["filterVerb"].as<std::string>(), "filter");
  EXPECT_EQ(extender["prioritizeVerb"].as<std::string>(), "prioritize");
  EXPECT_GT(extender["weight"].as<int>(),
            0);  // validation: a prioritizeVerb needs a positive weight
  EXPECT_TRUE(extender["nodeCacheCapable"].as<bool>());
  EXPECT_TRUE(extender["ignorable"].as<bool>());
  EXPECT_EQ(extender["httpTimeout"].as<std::string>(), "2s");
  // kube-scheduler calls serve through serve's own Service (serve has its own Pod and
  // ServiceAccount: extender.yaml), in the namespace it runs in.
  EXPECT_EQ(extender["urlPrefix"].as<std::string>(),
            "http://carbonroute-extender.carbonroute.svc:8888");
  const std::vector<YAML::Node> serve_documents = Documents("extender.yaml");
  const YAML::Node service = FindKind(serve_documents, "Service");
  EXPECT_EQ(service["metadata"]["name"].as<std::string>(), "carbonroute-extender");
  EXPECT_EQ(service["spec"]["ports"][0]["port"].as<int>(), 8888);
  // scheduler-lite listens where the Service points (all addresses: the kubelet's
  // readiness probe and the Service come to the pod IP), with the port it is probed on.
  const YAML::Node deployment = FindKind(serve_documents, "Deployment");
  const YAML::Node serve = deployment["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(serve["args"][2].as<std::string>(), "--web.listen-address=0.0.0.0:8888");
  EXPECT_EQ(serve["readinessProbe"]["httpGet"]["port"].as<int>(), 8888);
  ExpectTheBinaryTakes(serve["args"].as<std::vector<std::string>>());
  EXPECT_EQ(deployment["spec"]["template"]["metadata"]["labels"]["app"].as<std::string>(),
            service["spec"]["selector"]["app"].as<std::string>());
  // The unauthenticated extender is reachable from the scheduler's Pods and the scrape source.
  const YAML::Node policy = FindKind(serve_documents, "NetworkPolicy");
  EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"]["app"].as<std::string>(),
            "carbonroute-extender");
  ASSERT_EQ(policy["spec"]["ingress"].size(), 1u);
  const YAML::Node from = policy["spec"]["ingress"][0]["from"];
  ASSERT_EQ(from.size(), 2u);
  EXPECT_EQ(from[0]["podSelector"]["matchLabels"]["app"].as<std::string>(),
            "carbonroute-scheduler");
  EXPECT_EQ(
      from[1]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"].as<std::string>(),
      "monitoring");
}

// The second scheduler is hardened: two replicas leading under a Lease of its own (with the Role
// that lets it hold it), a PodDisruptionBudget, anti-affinity, probes and resources on
// kube-scheduler, an image of a supported version; serve is not in its Pod (so it holds none
// of kube-scheduler's rights); the scheduler and the collectors have a PriorityClass.
TEST(DeployManifests, TheSchedulerIsHardenedAndServeHasNoneOfItsRights) {
  const std::vector<YAML::Node> documents = Documents("scheduler.yaml");
  const YAML::Node config = YAML::Load(
      FindKind(documents, "ConfigMap")["data"]["scheduler-config.yaml"].as<std::string>());
  EXPECT_TRUE(config["leaderElection"]["leaderElect"].as<bool>());
  EXPECT_EQ(config["leaderElection"]["resourceName"].as<std::string>(), "carbonroute-scheduler");
  const YAML::Node lease_role = FindKind(documents, "Role");
  EXPECT_EQ(lease_role["rules"][0]["resourceNames"][0].as<std::string>(), "carbonroute-scheduler");
  EXPECT_EQ(lease_role["rules"][0]["verbs"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"get", "update"}));
  const YAML::Node deployment = FindKind(documents, "Deployment");
  EXPECT_EQ(deployment["spec"]["replicas"].as<int>(), 2);
  const YAML::Node pod = deployment["spec"]["template"]["spec"];
  EXPECT_TRUE(pod["affinity"]["podAntiAffinity"]);
  EXPECT_EQ(pod["priorityClassName"].as<std::string>(), "carbonroute");
  ASSERT_EQ(pod["containers"].size(), 1u) << "serve runs in its own Pod (extender.yaml)";
  const YAML::Node scheduler = pod["containers"][0];
  EXPECT_EQ(scheduler["name"].as<std::string>(), "kube-scheduler");
  EXPECT_TRUE(scheduler["livenessProbe"]["httpGet"]);
  EXPECT_TRUE(scheduler["readinessProbe"]["httpGet"]);
  EXPECT_TRUE(scheduler["resources"]["requests"]["cpu"]);
  EXPECT_TRUE(scheduler["resources"]["limits"]["memory"]);
  // v1.30 ended its support on 2025-06-28 (kubernetes.io/releases): the image follows the
  // cluster's version in the chart, and the base names test/cluster/versions' own.
  EXPECT_EQ(scheduler["image"].as<std::string>(), "registry.k8s.io/kube-scheduler:v1.36.3");
  EXPECT_EQ(FindKind(documents, "PodDisruptionBudget")["spec"]["minAvailable"].as<int>(), 1);
  // serve's ServiceAccount is bound to its own ClusterRole alone: reads of Pods and Nodes.
  const std::vector<YAML::Node> serve = Documents("extender.yaml");
  const YAML::Node serve_pod = FindKind(serve, "Deployment")["spec"]["template"]["spec"];
  EXPECT_EQ(serve_pod["serviceAccountName"].as<std::string>(), "carbonroute-extender");
  const YAML::Node role = FindKind(serve, "ClusterRole");
  ASSERT_EQ(role["rules"].size(), 1u);
  EXPECT_EQ(role["rules"][0]["verbs"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"get", "list", "watch"}));
  for (const auto& [file, kind] : {std::pair{"collector-daemonset.yaml", "DaemonSet"},
                                   std::pair{"collector-carbon-role.yaml", "Deployment"}}) {
    EXPECT_EQ(FindKind(Documents(file), kind)["spec"]["template"]["spec"]["priorityClassName"]
                  .as<std::string>(""),
              "carbonroute")
        << file;
  }
}

TEST(DeployManifests, ExamplesOptIntoTheCarbonrouteProfile) {
  const YAML::Node deployment = FindKind(Documents("examples/deployment.yaml"), "Deployment");
  const YAML::Node pod = deployment["spec"]["template"];
  EXPECT_EQ(pod["spec"]["schedulerName"].as<std::string>(), "carbonroute");
  EXPECT_EQ(pod["metadata"]["labels"]["delay_edge-gw-1"].as<std::string>(), "25");
  EXPECT_EQ(pod["metadata"]["annotations"]["carbonroute.io/expected-runtime"].as<std::string>(),
            "2h");
  const YAML::Node knative = FindKind(Documents("examples/knative-service.yaml"), "Service");
  EXPECT_EQ(knative["spec"]["template"]["spec"]["schedulerName"].as<std::string>(), "carbonroute");
}

TEST(DeployManifests, TheDaemonSetIsTheLatencyRoleWithNoProviderAtAll) {
  const YAML::Node config_map = FindKind(Documents("collector-daemonset.yaml"), "ConfigMap");
  const std::string text = config_map["data"]["collector.yaml"].as<std::string>();
  absl::StatusOr<CollectorConfig> config = ParseCollectorConfig(text, "configmap");
  ASSERT_THAT(config, testing::IsOk());
  EXPECT_TRUE(config->providers.empty());
  // Not even a commented one: uncommenting it would make every Node poll again.
  for (const char* key : {"type:", "locations:", "credentials", "token:", "password:"}) {
    EXPECT_EQ(text.find(key), std::string::npos) << key;
  }
  const YAML::Node daemonset = FindKind(Documents("collector-daemonset.yaml"), "DaemonSet");
  for (const YAML::Node& volume : daemonset["spec"]["template"]["spec"]["volumes"]) {
    EXPECT_FALSE(volume["secret"]) << "the latency role needs no credentials";
  }
}

TEST(DeployManifests, TheCarbonRolePollsTheClustersLocationsOnceWithTwoReplicas) {
  const std::vector<YAML::Node> documents = Documents("collector-carbon-role.yaml");
  const std::string text =
      FindKind(documents, "ConfigMap")["data"]["collector.yaml"].as<std::string>();
  absl::StatusOr<CollectorConfig> config = ParseCollectorConfig(text, "configmap");
  ASSERT_THAT(config, testing::IsOk());
  ASSERT_FALSE(config->providers.empty());
  for (const ProviderConfig& provider : config->providers) {
    EXPECT_TRUE(provider.locations_from_nodes) << provider.name;
    EXPECT_FALSE(providers::CallsAnApi(provider)) << "starts without the Secret";
  }
  EXPECT_EQ(config->rtt.peer_selection.mode, PeerSelectionMode::kNone);
  EXPECT_TRUE(config->rtt.kubernetes.enabled);
  // The live providers (the chart's carbon.watttime and carbon.electricityMaps): checked on the
  // chart's rendering, test/cluster/helm_chart_test.cc.

  const YAML::Node deployment = FindKind(documents, "Deployment");
  EXPECT_EQ(deployment["spec"]["replicas"].as<int>(), 2);
  const YAML::Node labels = deployment["spec"]["template"]["metadata"]["labels"];
  const std::string app = labels["app"].as<std::string>();
  EXPECT_EQ(FindKind(documents, "PodDisruptionBudget")["spec"]["minAvailable"].as<int>(), 1);
  EXPECT_EQ(FindKind(documents, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"]["app"]
                .as<std::string>(),
            app);
  EXPECT_EQ(FindKind(documents, "Service")["spec"]["selector"]["app"].as<std::string>(), app);
  const YAML::Node anti = deployment["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"];
  ASSERT_TRUE(anti);
  EXPECT_EQ(
      anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["topologyKey"]
          .as<std::string>(),
      "kubernetes.io/hostname");
}

// The pod's state volume is writable by its non-root user.
void ExpectWritableState(const YAML::Node& pod) {
  const int user = pod["securityContext"]["runAsUser"].as<int>();
  for (const YAML::Node& volume : pod["volumes"]) {
    if (volume["name"].as<std::string>() != "state") continue;
    // A hostPath is created root-owned; fsGroup does not apply to it.
    EXPECT_FALSE(volume["hostPath"]) << "the state volume must be writable by uid " << user;
    EXPECT_TRUE(volume["emptyDir"] || volume["persistentVolumeClaim"]);
  }
  // The image's user and group are both 65532; the volume belongs to that group.
  EXPECT_EQ(pod["securityContext"]["fsGroup"].as<int>(),
            pod["securityContext"]["runAsGroup"].as<int>());
  EXPECT_EQ(pod["securityContext"]["runAsGroup"].as<int>(), user);
}

// kube-prometheus-stack scrapes what deploy/prometheus-operator/ selects: the carbon role's
// Service by its labels and port name, the latency DaemonSet's Pods by theirs.
TEST(DeployManifests, TheMonitorsSelectTheCollectorsAndTheirMetricsPort) {
  const YAML::Node monitor =
      FindKind(Documents("../prometheus-operator/service-monitor.yaml"), "ServiceMonitor");
  const YAML::Node service = FindKind(Documents("collector-carbon-role.yaml"), "Service");
  for (const auto& label : monitor["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(service["metadata"]["labels"][label.first.as<std::string>()].as<std::string>(""),
              label.second.as<std::string>())
        << "the Service lacks the label the ServiceMonitor selects";
  }
  EXPECT_EQ(service["spec"]["ports"][0]["name"].as<std::string>(),
            monitor["spec"]["endpoints"][0]["port"].as<std::string>());
  EXPECT_EQ(monitor["spec"]["namespaceSelector"]["matchNames"][0].as<std::string>(),
            service["metadata"]["namespace"].as<std::string>());

  const YAML::Node pods =
      FindKind(Documents("../prometheus-operator/pod-monitor.yaml"), "PodMonitor");
  const YAML::Node daemonset = FindKind(Documents("collector-daemonset.yaml"), "DaemonSet");
  for (const auto& label : pods["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(daemonset["spec"]["template"]["metadata"]["labels"][label.first.as<std::string>()]
                  .as<std::string>(""),
              label.second.as<std::string>());
  }
  EXPECT_EQ(
      daemonset["spec"]["template"]["spec"]["containers"][0]["ports"][0]["name"].as<std::string>(),
      pods["spec"]["podMetricsEndpoints"][0]["port"].as<std::string>());
}

TEST(DeployManifests, TheCollectorCanWriteItsCacheAsItsNonRootUser) {
  for (const auto& [file, kind] : {std::pair{"collector-daemonset.yaml", "DaemonSet"},
                                   std::pair{"collector-carbon-role.yaml", "Deployment"}}) {
    SCOPED_TRACE(file);
    const YAML::Node workload = FindKind(Documents(file), kind);
    ExpectWritableState(workload["spec"]["template"]["spec"]);
  }
}

TEST(DeployManifests, ProbesTargetThePodNotTheNode) {
  for (const char* file : {"collector-daemonset.yaml", "collector-carbon-role.yaml",
                           "scheduler.yaml", "extender.yaml"}) {
    for (const YAML::Node& document : Documents(file)) {
      if (!document["kind"] || (document["kind"].as<std::string>() != "DaemonSet" &&
                                document["kind"].as<std::string>() != "Deployment")) {
        continue;
      }
      for (const YAML::Node& container : document["spec"]["template"]["spec"]["containers"]) {
        for (const char* probe : {"readinessProbe", "livenessProbe"}) {
          if (!container[probe] || !container[probe]["httpGet"]) continue;
          // The kubelet resolves `host` on the node: 127.0.0.1 there is not the pod.
          EXPECT_FALSE(container[probe]["httpGet"]["host"])
              << file << ": " << container["name"].as<std::string>() << " " << probe;
        }
      }
    }
  }
}

// A shipped ConfigMap checked on a workstation (no Pod, no kubeconfig) is valid but not runnable
// here: exit 3, naming the collector's own settings, never flags it does not take.
TEST(DeployManifests, TheShippedConfigMapsCheckedOffClusterAreValidButNotRunnableHere) {
  testing::ScopedTempDir dir;
  for (const char* file : {"collector-daemonset.yaml", "collector-carbon-role.yaml"}) {
    const std::string config = dir.File("collector.yaml");
    std::ofstream(config)
        << FindKind(Documents(file), "ConfigMap")["data"]["collector.yaml"].as<std::string>();
    const testing::ShellRun run = testing::Shell(absl::StrCat(
        "env -u KUBERNETES_SERVICE_HOST -u KUBERNETES_SERVICE_PORT -u KUBECONFIG HOME=", dir.path(),
        " ", CARBONROUTE_COLLECTOR_BINARY, " --check-config ", config, " 2>&1"));
    EXPECT_EQ(run.exit_code, 3) << file << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr("no rtt.discovery.kubernetes.api_url, no "
                                      "rtt.discovery.kubernetes.kubeconfig"))
        << file;
    EXPECT_THAT(run.output, Not(HasSubstr("--kube")));
    EXPECT_THAT(run.output, HasSubstr("not available here (exit 3)"));
  }
}

TEST(DeployManifests, CollectorsDiscoverNodesWithReadOnlyAccessToNodesAlone) {
  const std::vector<YAML::Node> documents = Documents("collector-daemonset.yaml");
  absl::StatusOr<CollectorConfig> config = ParseCollectorConfig(
      FindKind(documents, "ConfigMap")["data"]["collector.yaml"].as<std::string>(), "configmap");
  ASSERT_THAT(config, testing::IsOk());
  EXPECT_TRUE(config->rtt.kubernetes.enabled);
  EXPECT_TRUE(config->rtt.kubernetes.api_url.empty());  // in cluster
  // One DaemonSet for every region: identity comes from each node's own Node.
  EXPECT_EQ(config->node.region, "");
  EXPECT_EQ(config->node.zone, "");
  EXPECT_EQ(config->node.location, "");

  const YAML::Node daemonset = FindKind(documents, "DaemonSet");
  const std::string account =
      daemonset["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  const YAML::Node binding = FindKind(documents, "ClusterRoleBinding");
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), account);
  EXPECT_EQ(binding["subjects"][0]["namespace"].as<std::string>(),
            daemonset["metadata"]["namespace"].as<std::string>());
  const YAML::Node role = FindKind(documents, "ClusterRole");
  EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(),
            role["metadata"]["name"].as<std::string>());
  ASSERT_EQ(role["rules"].size(), 1u);
  const YAML::Node rule = role["rules"][0];
  EXPECT_EQ(rule["apiGroups"].as<std::vector<std::string>>(), std::vector<std::string>{""});
  EXPECT_EQ(rule["resources"].as<std::vector<std::string>>(), std::vector<std::string>{"nodes"});
  EXPECT_EQ(rule["verbs"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"get", "list", "watch"}));
}

// scheduler-lite hold needs get/list/watch/patch on Jobs and Pods, create on
// Events (one per release), its own Lease, and nothing else (issue: "RBAC
// limited to ..."); its examples opt in as it expects.
TEST(DeployManifests, TheHoldControllerHasOnlyTheAccessItNeedsAndTheExamplesOptIn) {
  const std::vector<YAML::Node> documents = Documents("hold.yaml");
  const YAML::Node role = FindKind(documents, "ClusterRole");
  ASSERT_EQ(role["rules"].size(), 3u);
  std::set<std::string> resources;
  for (const YAML::Node& rule : role["rules"]) {
    const auto names = rule["resources"].as<std::vector<std::string>>();
    if (names == std::vector<std::string>{"events"}) {
      EXPECT_EQ(rule["verbs"].as<std::vector<std::string>>(), std::vector<std::string>{"create"});
      continue;
    }
    EXPECT_EQ(rule["verbs"].as<std::vector<std::string>>(),
              (std::vector<std::string>{"get", "list", "watch", "patch"}));
    for (const std::string& resource : rule["resources"].as<std::vector<std::string>>()) {
      resources.insert(rule["apiGroups"][0].as<std::string>() + "/" + resource);
    }
  }
  EXPECT_EQ(resources, (std::set<std::string>{"batch/jobs", "/pods"}));
  const YAML::Node lease = FindKind(documents, "Role");  // namespaced: its own namespace only
  EXPECT_EQ(lease["metadata"]["namespace"].as<std::string>(), "carbonroute");
  EXPECT_EQ(lease["rules"][0]["resources"].as<std::vector<std::string>>(),
            std::vector<std::string>{"leases"});
  const YAML::Node deployment = FindKind(documents, "Deployment");
  const YAML::Node container = deployment["spec"]["template"]["spec"]["containers"][0];
  const auto args = container["args"].as<std::vector<std::string>>();
  EXPECT_EQ(args[0], "scheduler-lite");
  EXPECT_EQ(args[1], "hold");
  ExpectTheBinaryTakes(args);

  const YAML::Node job = FindKind(Documents("examples/deferred-job.yaml"), "Job");
  EXPECT_TRUE(job["spec"]["suspend"].as<bool>());
  EXPECT_EQ(job["metadata"]["labels"]["carbonroute.io/defer"].as<std::string>(), "true");
  EXPECT_TRUE(job["metadata"]["annotations"]["carbonroute.io/deadline"]);
  EXPECT_TRUE(job["metadata"]["annotations"]["carbonroute.io/expected-runtime"]);
  const YAML::Node cron = FindKind(Documents("examples/deferred-cronjob.yaml"), "CronJob");
  const YAML::Node run = cron["spec"]["jobTemplate"];
  EXPECT_TRUE(run["spec"]["suspend"].as<bool>());
  EXPECT_EQ(run["metadata"]["labels"]["carbonroute.io/defer"].as<std::string>(), "true");
  EXPECT_TRUE(run["metadata"]["annotations"]["carbonroute.io/expected-runtime"]);
}

// The re-placement controller moves Pods by eviction only: no delete anywhere, create on
// pods/eviction and nothing else on Pods but list; its example opts a Deployment in that the
// shipped profile places, under a PodDisruptionBudget.
TEST(DeployManifests, TheRebalanceControllerEvictsAndNeverDeletes) {
  const std::vector<YAML::Node> documents = Documents("rebalance/controller.yaml");
  const YAML::Node role = FindKind(documents, "ClusterRole");
  ASSERT_TRUE(role);
  std::map<std::string, std::vector<std::string>> verbs;  // group/resource → verbs
  for (const YAML::Node& rule : role["rules"]) {
    for (const std::string& resource : rule["resources"].as<std::vector<std::string>>()) {
      verbs[rule["apiGroups"][0].as<std::string>() + "/" + resource] =
          rule["verbs"].as<std::vector<std::string>>();
    }
  }
  for (const auto& [resource, granted] : verbs) {
    for (const std::string& verb : granted) {
      EXPECT_NE(verb, "delete") << resource;
      if (resource != "/pods/eviction" && resource != "/events") {
        EXPECT_TRUE(verb == "get" || verb == "list" || verb == "watch" ||
                    resource == "carbonroute.io/carbonrebalancepolicies/status")
            << resource << " " << verb;
      }
    }
  }
  EXPECT_EQ(verbs["/pods/eviction"], std::vector<std::string>{"create"});
  EXPECT_EQ(verbs["/pods"], std::vector<std::string>{"list"});
  EXPECT_EQ(verbs["carbonroute.io/carbonrebalancepolicies/status"],
            std::vector<std::string>{"patch"});
  EXPECT_EQ(verbs["apps/replicasets"], std::vector<std::string>{"list"});
  const YAML::Node deployment = FindKind(documents, "Deployment");
  const auto args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
                        .as<std::vector<std::string>>();
  EXPECT_EQ(args[1], "rebalance");
  EXPECT_EQ(args[2], "--controller");
  ExpectTheBinaryTakes(args);

  const std::vector<YAML::Node> example = Documents("rebalance/examples/web-rebalance.yaml");
  const YAML::Node web = FindKind(example, "Deployment");
  EXPECT_EQ(web["spec"]["template"]["spec"]["schedulerName"].as<std::string>(), "carbonroute");
  const YAML::Node policy = FindKind(example, "CarbonRebalancePolicy");
  for (const auto& label : policy["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(web["metadata"]["labels"][label.first.as<std::string>()].as<std::string>(),
              label.second.as<std::string>());
  }
  EXPECT_EQ(FindKind(example, "PodDisruptionBudget")["spec"]["maxUnavailable"].as<int>(), 1);
}

TEST(DeployManifests, TheKarmadaControllerTakesItsFlagsAndReachesOnlyTheKarmadaApiServer) {
  const std::vector<YAML::Node> documents = Documents("../karmada/host/controller.yaml");
  const YAML::Node deployment = FindKind(documents, "Deployment");
  ASSERT_TRUE(deployment);
  EXPECT_EQ(deployment["spec"]["replicas"].as<int>(), 2);
  const YAML::Node pod = deployment["spec"]["template"]["spec"];
  EXPECT_FALSE(pod["automountServiceAccountToken"].as<bool>());
  const auto args = pod["containers"][0]["args"].as<std::vector<std::string>>();
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[1], "karmada");
  EXPECT_EQ(args[2], "--controller");
  EXPECT_THAT(args, ::testing::Contains("--lease-namespace=karmada-system"));
  EXPECT_THAT(args, ::testing::Contains("--kubeconfig=/etc/karmada/config"));
  ExpectTheBinaryTakes(args);
  // The Lease the Deployment names is one the RBAC lets it hold.
  const YAML::Node role = FindKind(Documents("../karmada/karmada-apiserver/rbac.yaml"), "Role");
  EXPECT_EQ(role["metadata"]["namespace"].as<std::string>(), "karmada-system");
  EXPECT_EQ(role["rules"][0]["resources"].as<std::vector<std::string>>(),
            std::vector<std::string>{"leases"});
}

}  // namespace
}  // namespace carbonroute
