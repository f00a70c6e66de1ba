#include "routing/request_demand.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "contract/istio_labels.h"

namespace carbonroute::routing {
namespace {

// A PromQL string literal: backslashes and double quotes escaped.
std::string PromQlString(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '\\' || c == '"') quoted.push_back('\\');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

// The first of `labels` the sample has.
const std::string& FirstLabel(const model_sources::Sample& sample,
                              std::initializer_list<const char*> labels) {
  for (const char* label : labels) {
    const std::string& value = sample.Label(label);
    if (!value.empty()) return value;
  }
  return sample.Label(*labels.begin());
}

}  // namespace

std::string RequestRateQuery(const ServiceRef& service) {
  return absl::StrCat(
      "sum by (namespace, pod, kubernetes_namespace, kubernetes_pod_name, "
      "source_workload_namespace) (rate(istio_requests_total{reporter=\"source\", "
      "destination_service_name=",
      PromQlString(service.name),
      ", destination_service_namespace=", PromQlString(service.namespace_name), "}[",
      kRequestRateWindow, "]))");
}

ClientRates ReadClientRates(const std::vector<model_sources::Sample>& samples) {
  std::map<std::pair<std::string, std::string>, double> by_pod;
  ClientRates rates;
  for (const model_sources::Sample& sample : samples) {
    if (!std::isfinite(sample.value) || sample.value < 0) continue;
    const std::string& pod =
        FirstLabel(sample, {istio_labels::kPod, istio_labels::kKubernetesPodName});
    const std::string& ns =
        FirstLabel(sample, {istio_labels::kNamespace, istio_labels::kKubernetesNamespace,
                            istio_labels::kSourceWorkloadNamespace});
    if (pod.empty() || ns.empty()) {
      rates.unattributed += sample.value;
      continue;
    }
    by_pod[{ns, pod}] += sample.value;
  }
  for (const auto& [key, rate] : by_pod) {
    rates.clients.push_back({.namespace_name = key.first, .pod = key.second, .per_second = rate});
  }
  return rates;
}

LocalityDemand DemandByLocality(const ClientRates& rates,
                                const std::map<std::string, std::string>& pod_nodes,
                                const std::map<std::string, kube::KubeNode>& nodes,
                                LocalityLevel level) {
  LocalityDemand demand;
  demand.unlocated = rates.unattributed;
  for (const ClientRate& client : rates.clients) {
    const auto pod = pod_nodes.find(absl::StrCat(client.namespace_name, "/", client.pod));
    const auto node = pod == pod_nodes.end() ? nodes.end() : nodes.find(pod->second);
    const std::string locality = node == nodes.end() ? "" : NodeLocality(node->second, level);
    if (locality.empty()) {
      demand.unlocated += client.per_second;
    } else {
      demand.per_second[locality] += client.per_second;
    }
  }
  return demand;
}

RequestRateSource PrometheusRequestRates(net::HttpClient& http, std::string url,
                                         absl::Duration timeout, model_sources::SourceAuth auth) {
  return [&http, url = std::move(url), timeout,
          auth = std::move(auth)](const ServiceRef& service) -> absl::StatusOr<ClientRates> {
    std::vector<model_sources::Sample> samples;
    CARBONROUTE_RETURN_IF_ERROR(
        model_sources::QueryInstant(http, url, RequestRateQuery(service), timeout, auth, samples));
    return ReadClientRates(samples);
  };
}

}  // namespace carbonroute::routing
