// File: model_sources/rtt_sources.h
//
// RTT from what clusters already run, read through a Prometheus server
// (`--rtt-source`, repeatable: the first source that has a pair wins):
//   carbonroute       carbonroute_rtt_seconds, the collectors' own probes (default)
//   goldpinger        bloomberg/goldpinger's goldpinger_peers_response_time_s
//   monlat            bonavadeur/monlat's latency_between_nodes
//   smokeping_prober  SuperQ/smokeping_prober's smokeping_response_duration_seconds
// Each adapter is one PromQL instant query (PromQlFor) that answers
// carbonroute_rtt_seconds' shape: `source` and `target` Node names, the value
// in seconds; the samples become measured RTT rows whose `exporter` names the
// source (in explain's reasons: "measured by goldpinger").
//
// What each query does about its exporter's limits:
//   goldpinger   an HTTP /ping round trip, not an ICMP RTT; a histogram whose
//                smallest bucket is 5 ms, so the mean _sum/_count over 5 minutes
//                is used, never a bucket quantile. Failed pings are observed too,
//                at about the ping timeout (300 ms): a pair with half or more of
//                its observations above 250 ms is failing, an infinite RTT (no
//                latency limit holds on it, and no declared RTT stands in for
//                it), instead of looking like a 300 ms link. Targets are IPs (host_ip): joined to
//                Node names through kube-state-metrics' kube_node_info{node, internal_ip}; the
//                source is goldpinger_instance (spec.nodeName in its manifest).
//   monlat       the latest single ping, in milliseconds (÷ 1000), `from`/`to`
//                Node names; a pair without a sample in the last minute (a failed
//                ping writes no value) has no RTT.
//   smokeping    no source label: the scraped prober's Pod IP (`instance`) is
//                joined to kube_pod_info{pod_ip, node} for the source Node; the
//                target `ip` to kube_node_info{internal_ip, node}; the mean
//                _sum/_count over 5 minutes; a target with every echo lost has no
//                RTT (0/0).
// Without kube-state-metrics the IP-named sources give no pair: the error says so.
// (https://github.com/bloomberg/goldpinger, https://github.com/bonavadeur/monlat,
// https://github.com/SuperQ/smokeping_prober, https://github.com/kubernetes/kube-state-metrics
// docs/metrics/cluster/node-metrics.md and docs/metrics/workload/pod-metrics.md.)
//
// Errors: QueryRttSource returns its samples and the errors met (the
// Prometheus server's, and kNotFound naming the missing series).
// Thread safety: as the net::HttpClient.
#ifndef CARBONROUTE_MODEL_SOURCES_RTT_SOURCES_H_
#define CARBONROUTE_MODEL_SOURCES_RTT_SOURCES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/rtt_exporter.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"

namespace carbonroute::model_sources {

// The adapter's PromQL ("" for carbonroute: its own series are read as they are).
std::string PromQlFor(RttExporter source);
// Every adapter's query, for --help and docs/.
std::string RttSourcesHelp();

// The adapter's answer as carbonroute_rtt_seconds samples (method measured,
// exporter the source's name).
SourceResult QueryRttSource(net::HttpClient& http, const std::string& prometheus_url,
                            RttExporter source, absl::Duration timeout, const SourceAuth& auth);

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_RTT_SOURCES_H_
