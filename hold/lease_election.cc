#include "hold/lease_election.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace carbonroute::hold {
namespace {

using Json = nlohmann::json;

// A Lease's MicroTime: RFC 3339 with microseconds, UTC.
std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace

bool LeaseElection::Write(const std::string& method, const std::string& path,
                          const std::string& body) {
  absl::StatusOr<net::HttpResponse> response = api_.Call(method, path, body, "application/json");
  if (!response.ok()) {
    last_error_ = std::string(response.status().message());
    return false;
  }
  if (response->status != 200 && response->status != 201) {
    last_error_ = std::string(UnexpectedStatus(method, path, *response).message());
    return false;
  }
  return true;
}

bool LeaseElection::Tick(absl::Time now) {
  const std::string collection =
      absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", options_.namespace_name, "/leases");
  const std::string path = absl::StrCat(collection, "/", options_.name);
  const int64_t seconds = std::max<int64_t>(1, absl::ToInt64Seconds(options_.duration));
  next_tick_ = now + options_.duration / 3;
  absl::StatusOr<net::HttpResponse> current = api_.Call("GET", path);
  if (!current.ok()) {
    last_error_ = std::string(current.status().message());
    return leading_ = false;
  }
  Json lease;
  if (current->status == 404) {
    lease = {{"apiVersion", "coordination.k8s.io/v1"},
             {"kind", "Lease"},
             {"metadata", {{"name", options_.name}, {"namespace", options_.namespace_name}}},
             {"spec",
              {{"holderIdentity", options_.identity},
               {"leaseDurationSeconds", seconds},
               {"acquireTime", MicroTime(now)},
               {"renewTime", MicroTime(now)},
               {"leaseTransitions", 0}}}};
    return leading_ = Write("POST", collection, lease.dump());
  }
  if (current->status != 200) {
    last_error_ = std::string(UnexpectedStatus("GET", path, *current).message());
    return leading_ = false;
  }
  lease = Json::parse(current->body, nullptr, false);
  if (lease.is_discarded() || !lease.is_object() || !lease.contains("spec") ||
      !lease["spec"].is_object()) {
    last_error_ = absl::StrCat(path, ": not a Lease");
    return leading_ = false;
  }
  Json& spec = lease["spec"];
  const std::string holder = spec.value("holderIdentity", "");
  if (holder != options_.identity) {
    absl::Time renewed = absl::InfinitePast();
    std::string error;
    if (spec.contains("renewTime") && spec["renewTime"].is_string()) {
      absl::ParseTime(absl::RFC3339_full, spec["renewTime"].get<std::string>(), &renewed, &error);
    }
    const int64_t held_for =
        spec.contains("leaseDurationSeconds") && spec["leaseDurationSeconds"].is_number_integer()
            ? spec["leaseDurationSeconds"].get<int64_t>()
            : seconds;
    if (!holder.empty() && renewed + absl::Seconds(held_for) > now) {
      return leading_ = false;  // another replica leads; ask again in duration / 3
    }
    spec["holderIdentity"] = options_.identity;
    spec["acquireTime"] = MicroTime(now);
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  spec["renewTime"] = MicroTime(now);
  spec["leaseDurationSeconds"] = seconds;
  return leading_ = Write("PUT", path, lease.dump());
}

}  // namespace carbonroute::hold
