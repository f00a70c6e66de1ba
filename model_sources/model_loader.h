// File: model_sources/model_loader.h
//
// Reads every configured source once and builds a PlacementModel: the CLI
// calls it per command, `serve` on an interval (never per request).
//
// Errors of single sources are collected in LoadedModel::errors (the model is
// built from what could be read); files that cannot be read or parsed are
// errors too.
// Ownership: borrows the net::HttpClient. Thread safety: as the net::HttpClient.
#ifndef CARBONROUTE_MODEL_SOURCES_MODEL_LOADER_H_
#define CARBONROUTE_MODEL_SOURCES_MODEL_LOADER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "kube/kube_node.h"
#include "model_sources/metrics_source.h"
#include "model_sources/rtt_sources.h"
#include "net/http_client.h"
#include "placement/placement_model.h"

namespace carbonroute::model_sources {

struct ModelSources {
  std::vector<std::string> metrics_urls;  // collectors' /metrics
  std::string prometheus_url;             // e.g. http://prometheus:9090 ("" = none)
  std::string rtt_matrix_csv;        // sending_region,receiving_region,milliseconds ("" = none)
  std::string region_locations_csv;  // gcp_region,zone ("" = none)
  EmissionsType emissions_type = EmissionsType::kAverage;  // preferred when a location has both
  absl::Duration timeout = absl::Seconds(10);
  SourceAuth auth;  // TLS and credentials for the metrics URLs and Prometheus

  // Where measured RTTs come from, in order of preference (--rtt-source; the
  // adapters other than carbonroute read through prometheus_url: rtt_sources.h).
  std::vector<RttExporter> rtt_sources = {RttExporter::kCarbonroute};
  // The Nodes the Kubernetes API lists now (serve with --watch-nodes: api_nodes.h),
  // added after the files (ModelBuilder::AddApiNodes).
  std::vector<kube::KubeNode> api_nodes;

  bool default_source = false;  // metrics_urls is the default, not the user's
  bool empty() const { return metrics_urls.empty() && prometheus_url.empty(); }
};

struct LoadedModel {
  std::shared_ptr<const placement::PlacementModel> model;
  std::vector<absl::Status> errors;
  int sources_read = 0;  // metrics URLs + Prometheus answered
  // Nodes whose collector and Node object name different grid locations (AddApiNodes).
  std::vector<std::string> node_mismatches;
};

LoadedModel LoadModel(const ModelSources& sources, net::HttpClient& http, absl::Time now);

// A model built at `now`, as a controller asks for one at each pass.
using ModelLoader = std::function<LoadedModel(absl::Time now)>;
// LoadModel from `sources` through `http`; borrows both, which must outlive it.
ModelLoader LoaderOf(const ModelSources& sources, net::HttpClient& http);

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_MODEL_LOADER_H_
