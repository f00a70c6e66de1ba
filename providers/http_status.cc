#include "providers/http_status.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "providers/call_limiter.h"

namespace carbonroute::providers {
namespace {

// Retry-After is delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now) {
  int64_t seconds = 0;
  if (absl::SimpleAtoi(value, &seconds) && seconds >= 0) return absl::Seconds(seconds);
  absl::Time when;
  if (absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", value, absl::UTCTimeZone(), &when, nullptr)) {
    return std::max(absl::ZeroDuration(), when - now);
  }
  return std::nullopt;
}

}  // namespace

std::string BodyExcerpt(absl::string_view body) {
  std::string out;
  bool space = false;
  for (char c : body) {
    if (out.size() >= 160) {
      out += "…";
      break;
    }
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(absl::ascii_iscntrl(static_cast<unsigned char>(c)) ? '?' : c);
  }
  return out;
}

absl::Status StatusFromHttp(const net::HttpResponse& response, absl::string_view what,
                            absl::Time now) {
  const int code = response.status;
  if (code >= 200 && code < 300) return absl::OkStatus();
  const std::string message = absl::StrCat(what, ": HTTP ", code, ": ", BodyExcerpt(response.body));
  if (code == 401) return absl::UnauthenticatedError(message);
  if (code == 403) return absl::PermissionDeniedError(message);
  if (code == 404) return absl::NotFoundError(message);
  if (code == 429) {
    absl::Status status = absl::ResourceExhaustedError(message);
    auto it = response.headers.find("retry-after");
    if (it != response.headers.end()) {
      if (std::optional<absl::Duration> delay = ParseRetryAfter(it->second, now)) {
        status.SetPayload(kRetryAfterPayload,
                          absl::Cord(absl::StrCat(absl::ToInt64Seconds(*delay))));
      }
    }
    if (auto held = response.headers.find(LimitedHttpClient::kHeldHeader);
        held != response.headers.end()) {
      status.SetPayload(kHeldBackPayload, absl::Cord(held->second));
    }
    return status;
  }
  if (code >= 500) return absl::UnavailableError(message);
  absl::Status refused = absl::InvalidArgumentError(message);
  refused.SetPayload(kRequestRefusedPayload, absl::Cord(absl::StrCat(code)));
  return refused;
}

bool IsHeldBack(const absl::Status& status) {
  return status.GetPayload(kHeldBackPayload).has_value();
}

bool IsRequestRefused(const absl::Status& status) {
  return status.GetPayload(kRequestRefusedPayload).has_value();
}

std::optional<absl::Duration> RetryAfter(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kRetryAfterPayload);
  int64_t seconds = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &seconds)) return std::nullopt;
  return absl::Seconds(seconds);
}

}  // namespace carbonroute::providers
