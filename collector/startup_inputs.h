// File: collector/startup_inputs.h
//
// What a collector reads at start besides its configuration, shared by the
// run (CollectorDaemon::Create and its parts) and --check-config
// (CollectorDaemon::CheckStartup), so both read it one way: the row of the
// declared RTT matrix, the Kubernetes API of the Node discovery, the
// region-keyed data files, the names the Carbon Aware SDK API takes.
//
// Errors: each is prefixed with the configuration key it comes from
// ("rtt.static_matrix: ...", "rtt.discovery.kubernetes: ..."): the
// underlying reader's code (kNotFound for a missing file, kInvalidArgument
// for a malformed one). Thread safety: free functions over their arguments.
#ifndef CARBONROUTE_COLLECTOR_STARTUP_INPUTS_H_
#define CARBONROUTE_COLLECTOR_STARTUP_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/data_files.h"
#include "carbon_aware/location_names.h"
#include "collector/declared_rtt.h"
#include "collector/node_locations.h"
#include "config/collector_config.h"
#include "contract/region_locations.h"
#include "kube/kube_connection.h"
#include "net/http_client.h"

namespace carbonroute::collector {

// `status` with "`what`: " before its message, the code kept.
absl::Status Prefixed(const absl::Status& status, absl::string_view what);

// A provider's build error, prefixed with `provider "NAME"` unless it says so already.
absl::Status ProviderError(const absl::Status& status, const std::string& name);

// The HTTP client of a collector whose providers are all offline (static,
// replay): libcurl and its TLS library are never initialised, which keeps
// ~4 MB of their pages out of the resident set. Every Send is kFailedPrecondition.
class NoHttpClient final : public net::HttpClient {
 public:
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest&) override {
    return absl::FailedPreconditionError("no HTTP client: no configured provider calls an API");
  }
};

// The longest one provider call may take: two whole requests (WattTime logs
// in, then asks) for the HTTP providers, a few seconds for the offline ones.
absl::Duration LongestCall(const std::vector<ProviderConfig>& providers);

// The row of rtt.static_matrix (REQUIRES: set) from `node` to rtt.peers;
// `path` receives the file found.
absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRow(const NodeConfig& node, const RttConfig& rtt,
                                                     const DataPaths& data, std::string& path);

// The Kubernetes API of rtt.discovery.kubernetes (REQUIRES: enabled).
absl::StatusOr<kube::KubeConnection> DiscoveryConnection(const CollectorConfig& config);

// rtt.discovery.kubernetes.region_locations, read (REQUIRES: enabled).
absl::StatusOr<RegionLocations> DiscoveryRegionLocations(const CollectorConfig& config,
                                                         const DataPaths& data);

// The region → coordinates table, when a WattTime provider takes its
// locations from the Nodes; else an empty table.
absl::StatusOr<RegionCoordinates> DiscoveryRegionCoordinates(const CollectorConfig& config,
                                                             const DataPaths& data);

// The names the Carbon Aware SDK API takes: grid locations, and the cloud
// regions of the shipped cloud region table with their coordinates (the
// table missing: without them, logged).
carbon_aware::LocationNames CarbonAwareLocationNames(const DataPaths& data);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_STARTUP_INPUTS_H_
