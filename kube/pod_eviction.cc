#include "kube/pod_eviction.h"

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace carbonroute::kube {
namespace {

std::string MessageOf(absl::string_view body) {
  const nlohmann::json status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object() && status.contains("message") && status["message"].is_string()) {
    return status["message"].get<std::string>();
  }
  return std::string(body.substr(0, 200));
}

}  // namespace

bool RefusedByDisruptionBudget(absl::string_view body) {
  const nlohmann::json status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!status.is_object()) return false;
  if (status.contains("details") && status["details"].is_object() &&
      status["details"].contains("causes") && status["details"]["causes"].is_array()) {
    for (const nlohmann::json& cause : status["details"]["causes"]) {
      if (cause.is_object() && cause.contains("type") && cause["type"] == "DisruptionBudget") {
        return true;
      }
    }
  }
  return status.contains("message") && status["message"].is_string() &&
         absl::StrContains(status["message"].get<std::string>(), "disruption budget");
}

EvictionAnswer Evict(const KubeClient& api, const std::string& namespace_name,
                     const std::string& pod_name) {
  const nlohmann::json eviction = {
      {"apiVersion", "policy/v1"},
      {"kind", "Eviction"},
      {"metadata", {{"name", pod_name}, {"namespace", namespace_name}}}};
  const std::string path =
      absl::StrCat("/api/v1/namespaces/", namespace_name, "/pods/", pod_name, "/eviction");
  absl::StatusOr<net::HttpResponse> response = api.Call({.method = "POST",
                                                         .path = path,
                                                         .body = eviction.dump(),
                                                         .content_type = "application/json"});
  if (!response.ok()) return {EvictionOutcome::kFailed, std::string(response.status().message())};
  switch (response->status) {
    case 200:
    case 201:
      return {EvictionOutcome::kEvicted, ""};
    case 404:
      return {EvictionOutcome::kGone, MessageOf(response->body)};
    case 429:
      return {RefusedByDisruptionBudget(response->body) ? EvictionOutcome::kBlockedByPdb
                                                        : EvictionOutcome::kThrottled,
              MessageOf(response->body)};
    default:
      return {EvictionOutcome::kFailed, std::string(ApiError("POST", path, *response).message())};
  }
}

}  // namespace carbonroute::kube
