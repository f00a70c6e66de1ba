// File: providers/url.h
//
// Query-string building for the provider requests.
#ifndef CARBONROUTE_PROVIDERS_URL_H_
#define CARBONROUTE_PROVIDERS_URL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace carbonroute::providers {

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(absl::string_view text);

// "?a=1&b=x%20y" from the pairs (values encoded).
std::string Query(const std::vector<std::pair<std::string, std::string>>& params);

// A location given as "latitude,longitude" (decimal degrees), or nullopt-like false.
bool ParseLatLon(absl::string_view location, double& latitude, double& longitude);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_URL_H_
