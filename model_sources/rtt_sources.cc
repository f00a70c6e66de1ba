#include "model_sources/rtt_sources.h"

#include "absl/strings/str_cat.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::model_sources {
namespace {

namespace label = metric_labels;

// kube_node_info with its internal_ip as `ip` and its node as `target`.
constexpr char kNodeByIp[] =
    R"q(max by (ip, target) (label_replace(label_replace(kube_node_info, "ip", "$1", "internal_ip", "(.+)"), "target", "$1", "node", "(.+)")))q";

// Goldpinger: the 5-minute mean per (instance, host IP); a failing pair (half or more of its
// observations above 250 ms) +Inf; the host IP named by kube_node_info.
constexpr char kGoldpinger[] =
    R"q((((sum by (goldpinger_instance, ip) (label_replace(rate(goldpinger_peers_response_time_s_sum{call_type="ping"}[5m]), "ip", "$1", "host_ip", "(.+)")) / sum by (goldpinger_instance, ip) (label_replace(rate(goldpinger_peers_response_time_s_count{call_type="ping"}[5m]), "ip", "$1", "host_ip", "(.+)"))) unless on (goldpinger_instance, ip) (sum by (goldpinger_instance, ip) (label_replace(rate(goldpinger_peers_response_time_s_bucket{call_type="ping", le="0.25"}[5m]), "ip", "$1", "host_ip", "(.+)")) < 0.5 * sum by (goldpinger_instance, ip) (label_replace(rate(goldpinger_peers_response_time_s_count{call_type="ping"}[5m]), "ip", "$1", "host_ip", "(.+)")))) or on (goldpinger_instance, ip) ((sum by (goldpinger_instance, ip) (label_replace(rate(goldpinger_peers_response_time_s_bucket{call_type="ping", le="0.25"}[5m]), "ip", "$1", "host_ip", "(.+)")) < 0.5 * sum by (goldpinger_instance, ip) (label_replace(rate(goldpinger_peers_response_time_s_count{call_type="ping"}[5m]), "ip", "$1", "host_ip", "(.+)"))) * 0 + Inf)) * on (ip) group_left (target) )q";

// monlat: the last minute's latest ping, milliseconds to seconds.
constexpr char kMonlat[] =
    R"q(label_replace(label_replace(last_over_time(latency_between_nodes[1m]) / 1000, "source", "$1", "from", "(.+)"), "target", "$1", "to", "(.+)"))q";

// smokeping_prober: the 5-minute mean per (scraped pod, target IP); the pod's Node by its IP.
constexpr char kSmokeping[] =
    R"q(label_replace((sum by (pod_ip, ip) (label_replace(rate(smokeping_response_duration_seconds_sum[5m]), "pod_ip", "$1", "instance", "\\[?([^\\]]+?)\\]?:[0-9]+")) / sum by (pod_ip, ip) (label_replace(rate(smokeping_response_duration_seconds_count[5m]), "pod_ip", "$1", "instance", "\\[?([^\\]]+?)\\]?:[0-9]+"))) * on (pod_ip) group_left (node) max by (pod_ip, node) (kube_pod_info), "source", "$1", "node", "(.+)") * on (ip) group_left (target) )q";

// The exporter's own series, to tell "not scraped" from "not joined".
const char* RawSeries(RttExporter source) {
  switch (source) {
    case RttExporter::kGoldpinger:
      return "goldpinger_peers_response_time_s_count";
    case RttExporter::kMonlat:
      return "latency_between_nodes";
    case RttExporter::kSmokepingProber:
      return "smokeping_response_duration_seconds_count";
    case RttExporter::kCarbonroute:
      break;
  }
  return metric_names::kRtt;
}

}  // namespace

std::string PromQlFor(RttExporter source) {
  switch (source) {
    case RttExporter::kGoldpinger:
      return absl::StrCat("label_replace(", kGoldpinger, kNodeByIp,
                          R"q(, "source", "$1", "goldpinger_instance", "(.+)"))q");
    case RttExporter::kMonlat:
      return kMonlat;
    case RttExporter::kSmokepingProber:
      return absl::StrCat(kSmokeping, kNodeByIp);
    case RttExporter::kCarbonroute:
      break;
  }
  return "";
}

std::string RttSourcesHelp() {
  // One line per source: the PromQL each runs is in docs/scheduler-lite.md and RttSourceQueries()
  // (1.5 kB of it in every --help was more than anyone reads there).
  std::string help =
      "--rtt-source: RTT from what the cluster already runs, through --prometheus (the first "
      "source that has a pair wins): carbonroute (the collectors' carbonroute_rtt_seconds)";
  for (RttExporter source : kRttExporters) {
    if (source == RttExporter::kCarbonroute) continue;
    absl::StrAppend(&help, ", ", RttExporterName(source));
  }
  absl::StrAppend(&help,
                  "; the query each runs: docs/scheduler-lite.md, \"RTT from other exporters\"\n");
  return help;
}

SourceResult QueryRttSource(net::HttpClient& http, const std::string& prometheus_url,
                            RttExporter source, absl::Duration timeout, const SourceAuth& auth) {
  SourceResult result;
  std::vector<Sample> answer;
  if (absl::Status queried =
          QueryInstant(http, prometheus_url, PromQlFor(source), timeout, auth, answer);
      !queried.ok()) {
    result.errors.push_back(queried);
    return result;
  }
  for (Sample& sample : answer) {
    if (sample.Label(label::kSource).empty() || sample.Label(label::kTarget).empty()) continue;
    Sample rtt;
    rtt.name = metric_names::kRtt;
    rtt.value = sample.value;
    rtt.labels = {{label::kSource, sample.Label(label::kSource)},
                  {label::kTarget, sample.Label(label::kTarget)},
                  {label::kMethod, "measured"},
                  {label::kExporter, std::string(RttExporterName(source))}};
    result.samples.push_back(std::move(rtt));
  }
  if (!result.samples.empty()) return result;
  // Nothing: say why (no exporter series, or nothing to name its IPs with).
  std::vector<Sample> raw, nodes;
  const bool scraped =
      QueryInstant(http, prometheus_url, absl::StrCat("count(", RawSeries(source), ")"), timeout,
                   auth, raw)
          .ok() &&
      !raw.empty();
  const bool joined =
      source == RttExporter::kMonlat ||
      (QueryInstant(http, prometheus_url, "count(kube_node_info)", timeout, auth, nodes).ok() &&
       !nodes.empty());
  result.errors.push_back(absl::NotFoundError(
      !scraped ? absl::StrCat("--rtt-source ", RttExporterName(source), ": ", prometheus_url,
                              " has no ", RawSeries(source), " series (is the exporter scraped?)")
      : !joined
          ? absl::StrCat("--rtt-source ", RttExporterName(source), ": ", prometheus_url,
                         " has no kube_node_info: its targets are IPs, named as Nodes through "
                         "kube-state-metrics (install it, or scrape it)")
          : absl::StrCat("--rtt-source ", RttExporterName(source),
                         ": no pair of Nodes could be named (no target IP is a Node's "
                         "InternalIP, or every pair is failing)")));
  return result;
}

}  // namespace carbonroute::model_sources
