// File: bench/gke_node_json.h
//
// A Node as GKE's API server returns it, for the benchmarks that read Nodes
// (discovery_benchmark, kube_json_benchmark).
#ifndef CARBONROUTE_BENCH_GKE_NODE_JSON_H_
#define CARBONROUTE_BENCH_GKE_NODE_JSON_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace carbonroute::bench {

// A Node as a managed cluster's API server returns it (the shape of a GKE
// Node from `kubectl get node -o json`, about 12 KB): some twenty labels and
// annotations, managedFields from four managers, five conditions, node info,
// and the images present on the Node (40, each with a digest and a tag),
// which are most of its bytes. Discovery reads a few fields of it.
inline std::string NodeJson(int i, int zones, const std::string& location) {
  const int zone = i % zones;
  const std::string name = absl::StrCat("gke-prod-pool-", i);
  const std::string time = "2026-11-25T08:00:00Z";
  std::string images;
  for (int image = 0; image < 40; ++image) {
    absl::StrAppend(&images, image == 0 ? "" : ",", R"({"names":["europe-docker.pkg.dev/project-)",
                    image % 7, R"(/images/service-)", image,
                    R"(@sha256:4f9a1c2b7e3d5a6f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7",)",
                    R"("europe-docker.pkg.dev/project-)", image % 7, R"(/images/service-)", image,
                    R"(:v1.)", image, R"(.0"],"sizeBytes":)", 20'000'000 + image * 1'234'567, "}");
  }
  std::string conditions;
  for (const char* type : {"FrequentUnregisterNetDevice", "KernelDeadlock", "NetworkUnavailable",
                           "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    const bool ready = std::string(type) == "Ready";
    absl::StrAppend(&conditions, conditions.empty() ? "" : ",", R"({"type":")", type,
                    R"(","status":")", ready ? "True" : "False", R"(","lastHeartbeatTime":")", time,
                    R"(","lastTransitionTime":")", time, R"(","reason":")",
                    ready ? "KubeletReady" : "NoProblem", R"(","message":")",
                    ready ? "kubelet is posting ready status. AppArmor enabled"
                          : "node is functioning properly",
                    R"("})");
  }
  std::string managed;
  for (const char* manager :
       {"kubelet", "kube-controller-manager", "node-problem-detector", "gke-node-labeler"}) {
    absl::StrAppend(
        &managed, managed.empty() ? "" : ",", R"({"manager":")", manager,
        R"(","operation":"Update","apiVersion":"v1","time":")", time,
        R"(","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},)",
        R"("f:node.alpha.kubernetes.io/ttl":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},)",
        R"("f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/instance-type":{},)",
        R"("f:cloud.google.com/gke-nodepool":{},"f:kubernetes.io/hostname":{}}},)",
        R"("f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastHeartbeatTime":{},)",
        R"("f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},)",
        R"("f:images":{},"f:nodeInfo":{"f:bootID":{},"f:kernelVersion":{}}}}})");
  }
  return absl::StrCat(
      R"({"kind":"Node","apiVersion":"v1","metadata":{"name":")", name,
      R"(","uid":"5c2f9a9e-0d1b-4c7e-9f3a-)", 100000000000 + i, R"(","resourceVersion":")", i,
      R"(","creationTimestamp":")", time, R"(","labels":{"beta.kubernetes.io/arch":"amd64",)",
      R"("beta.kubernetes.io/instance-type":"e2-standard-8","beta.kubernetes.io/os":"linux",)",
      R"("cloud.google.com/gke-boot-disk":"pd-balanced","cloud.google.com/gke-container-runtime":"containerd",)",
      R"("cloud.google.com/gke-nodepool":"prod-pool","cloud.google.com/gke-os-distribution":"cos",)",
      R"("cloud.google.com/machine-family":"e2","cloud.google.com/private-node":"false",)",
      R"("failure-domain.beta.kubernetes.io/region":"region-)", zone / 3,
      R"(","failure-domain.beta.kubernetes.io/zone":"zone-)", zone,
      R"(","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")", name,
      R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"e2-standard-8",)",
      R"("topology.gke.io/zone":"zone-)", zone, R"(","topology.kubernetes.io/region":"region-)",
      zone / 3, R"(","topology.kubernetes.io/zone":"zone-)", zone,
      R"(","carbonroute.io/location":")", location,
      R"("},"annotations":{"container.googleapis.com/instance_id":")", 7000000000000000000LL + i,
      R"(","csi.volume.kubernetes.io/nodeid":"{\"pd.csi.storage.gke.io\":\"projects/prod/zones/zone-)",
      zone, "/instances/", name,
      R"(\"}","node.alpha.kubernetes.io/ttl":"0","node.gke.io/last-applied-node-labels":"cloud.google.com/gke-boot-disk=pd-balanced,cloud.google.com/gke-container-runtime=containerd,cloud.google.com/gke-nodepool=prod-pool",)",
      R"("volumes.kubernetes.io/controller-managed-attach-detach":"true"},"managedFields":[)",
      managed, R"(]},"spec":{"podCIDR":"10.)", i / 250, ".", i % 250, R"(.0/24","podCIDRs":["10.)",
      i / 250, ".", i % 250, R"(.0/24"],"providerID":"gce://prod/zone-)", zone, "/", name,
      R"("},"status":{"capacity":{"cpu":"8","ephemeral-storage":"98831908Ki","hugepages-1Gi":"0",)",
      R"("hugepages-2Mi":"0","memory":"32880268Ki","pods":"110"},"allocatable":{"cpu":"7910m",)",
      R"("ephemeral-storage":"47060071478","hugepages-1Gi":"0","hugepages-2Mi":"0",)",
      R"("memory":"29094540Ki","pods":"110"},"conditions":[)", conditions,
      R"(],"addresses":[{"type":"InternalIP","address":"10.)", 100 + i / 250, ".", i % 250,
      R"(.1"},{"type":"ExternalIP","address":"34.)", 10 + i / 250, ".", i % 250,
      R"(.7"},{"type":"Hostname","address":")", name,
      R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{)",
      R"("machineID":"0c4d6e8f0a1b2c3d4e5f60718293a4b5","systemUUID":"0c4d6e8f-0a1b-2c3d-4e5f-60718293a4b5",)",
      R"("bootID":"b7a8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c0d","kernelVersion":"6.1.100+",)",
      R"("osImage":"Container-Optimized OS from Google","containerRuntimeVersion":"containerd://1.7.22",)",
      R"("kubeletVersion":"v1.30.5-gke.1014001","kubeProxyVersion":"v1.30.5-gke.1014001",)",
      R"("operatingSystem":"linux","architecture":"amd64"},"images":[)", images, "]}}");
}

}  // namespace carbonroute::bench

#endif  // CARBONROUTE_BENCH_GKE_NODE_JSON_H_
