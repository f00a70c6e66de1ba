// File: providers/http_status.h
//
// The one mapping from an HTTP answer to an absl::Status for the providers.
// The code says whether a retry makes sense:
//
//   2xx            OK
//   401            kUnauthenticated     (credentials or token: re-login, else a config error)
//   403            kPermissionDenied    (not in the plan / region / zone: a config error)
//   404            kNotFound
//   429            kResourceExhausted   with the Retry-After delay as a payload; and
//                                       a held-back payload when the 429 is the
//                                       client-side limiter's (providers/call_limiter.h)
//   400, 422, …    kInvalidArgument     with a request-refused payload (our request was
//                                       refused: a config error, IsRequestRefused)
//   5xx            kUnavailable         (retry with backoff)
//
// Messages say `what` was requested (provider and location), the status, and
// the start of the body with white space folded (HTML error pages included);
// never the request's headers or query string.
#ifndef CARBONROUTE_PROVIDERS_HTTP_STATUS_H_
#define CARBONROUTE_PROVIDERS_HTTP_STATUS_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/http_client.h"

namespace carbonroute::providers {

// The Status payload URL carrying a Retry-After delay in whole seconds.
inline constexpr char kRetryAfterPayload[] = "type.carbonroute.io/retry-after-seconds";
// The Status payload URL marking an error as the provider refusing our
// request (HTTP 400, 422, ...), as opposed to an answer we could not parse;
// it carries the HTTP status code.
inline constexpr char kRequestRefusedPayload[] = "type.carbonroute.io/request-refused";

// The Status payload URL marking a call that carbonroute's own limiter held
// back (never sent); it carries the limit's description.
inline constexpr char kHeldBackPayload[] = "type.carbonroute.io/held-back";

absl::Status StatusFromHttp(const net::HttpResponse& response, absl::string_view what,
                            absl::Time now);

// The Retry-After delay attached by StatusFromHttp, if any.
std::optional<absl::Duration> RetryAfter(const absl::Status& status);

// Whether `status` is the provider refusing our request (HTTP 4xx other than
// 401, 403, 404 and 429): a configuration error, not a transient one.
bool IsRequestRefused(const absl::Status& status);

// Whether `status` is a call the client-side limiter held back (never sent).
bool IsHeldBack(const absl::Status& status);

// Up to 160 characters of `body` with runs of white space folded to one space.
std::string BodyExcerpt(absl::string_view body);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_HTTP_STATUS_H_
