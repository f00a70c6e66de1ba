// File: providers/make_provider.h
//
// The explicit factory from configuration to Provider (no static registration).
#ifndef CARBONROUTE_PROVIDERS_MAKE_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_MAKE_PROVIDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/collector_config.h"
#include "providers/http_client.h"
#include "providers/provider.h"

namespace carbonroute::providers {

// Where providers look for data files named by a relative path, in order.
struct DataPaths {
  std::vector<std::string> search_dirs;
};

// Returns the first `search_dirs[i]/name` that exists, or `name` itself when it
// is absolute or exists relative to the working directory.
// kNotFound listing every place tried.
absl::StatusOr<std::string> FindDataFile(const std::string& name, const DataPaths& paths);

// Builds the provider `config` describes; live providers send their requests
// through `http`, which must outlive the provider. kNotFound if a data file
// or a credential is missing; kInvalidArgument if the data or the configured
// locations are invalid.
absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const ProviderConfig& config,
                                                       const DataPaths& paths, HttpClient& http);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_MAKE_PROVIDER_H_
