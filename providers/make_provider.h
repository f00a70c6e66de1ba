// File: providers/make_provider.h
//
// The explicit factory from configuration to Provider (no static registration).
#ifndef CARBONROUTE_PROVIDERS_MAKE_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_MAKE_PROVIDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/data_files.h"
#include "config/collector_config.h"
#include "net/http_client.h"
#include "providers/provider.h"

namespace carbonroute::providers {

// Builds the provider `config` describes; live providers send their requests
// through `http`, which must outlive the provider. kNotFound if a data file
// or a credential is missing; kInvalidArgument if the data or the configured
// locations are invalid.
absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const ProviderConfig& config,
                                                       const DataPaths& paths,
                                                       net::HttpClient& http);

// Whether the provider `config` describes sends HTTP requests (WattTime,
// Electricity Maps, UK Carbon Intensity) rather than reading local data
// (replay, static). A collector with none of the former needs no HTTP client.
bool CallsAnApi(const ProviderConfig& config);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_MAKE_PROVIDER_H_
