// File: net/url.h
//
// Query-string building for HTTP requests (RFC 3986 percent-encoding).
#ifndef CARBONROUTE_NET_URL_H_
#define CARBONROUTE_NET_URL_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace carbonroute::net {

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(absl::string_view text);

// "?a=1&b=x%20y" from the pairs (values encoded).
std::string Query(const std::vector<std::pair<std::string, std::string>>& params);

// `base` and `path` with exactly one '/' between them, whatever either
// brings: JoinUrl("http://h:9090/", "/api/v1/query") is "http://h:9090/api/v1/query".
std::string JoinUrl(absl::string_view base, absl::string_view path);

// How a parameter's name is matched: exactly, or ignoring ASCII case (as
// ASP.NET Core's model binding does: `Location=` binds `location`).
enum class NameCase { kExact, kIgnore };

// The value of parameter `name` in `query` (the part after '?', "a=1&b=x%20y"),
// percent-decoded with '+' as a space (application/x-www-form-urlencoded); the
// first if it appears more than once; nullopt if absent.
std::optional<std::string> QueryParameter(absl::string_view query, absl::string_view name,
                                          NameCase name_case = NameCase::kExact);

// Every value of parameter `name` in `query`, in order, decoded as above
// (`?location=DE&location=FR`); empty if absent.
std::vector<std::string> QueryParameters(absl::string_view query, absl::string_view name,
                                         NameCase name_case = NameCase::kExact);

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_URL_H_
