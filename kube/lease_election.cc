#include "kube/lease_election.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "kube/json_view.h"

namespace carbonroute::kube {

std::string ReplicaIdentity() {
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') return pod;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, "-", getpid());
}

namespace {

using Json = nlohmann::json;

// A Lease's MicroTime: RFC 3339 with microseconds, UTC.
std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

// What a renewal or takeover keeps of the Lease read.
struct ReadLease {
  std::string holder, renew_time, acquire_time, resource_version;
  std::optional<int64_t> duration_seconds;
  int64_t transitions = 0;
  std::map<std::string, std::string> labels, annotations;
};

absl::StatusOr<ReadLease> ParseLease(const std::string& body) {
  JsonDocument document;
  absl::StatusOr<JsonField> root = document.Parse(body, "Lease");
  if (!root.ok()) return root.status();
  if (absl::Status status = (*root)["spec"].RequireObject(); !status.ok()) return status;
  ReadLease lease;
  const JsonField spec = (*root)["spec"];
  const JsonField metadata = (*root)["metadata"];
  absl::StatusOr<std::string> text = spec["holderIdentity"].OptionalString();
  if (!text.ok()) return text.status();
  lease.holder = *text;
  if (text = spec["renewTime"].OptionalString(); !text.ok()) return text.status();
  lease.renew_time = *text;
  if (text = spec["acquireTime"].OptionalString(); !text.ok()) return text.status();
  lease.acquire_time = *text;
  if (text = metadata["resourceVersion"].OptionalString(); !text.ok()) return text.status();
  lease.resource_version = *text;
  absl::StatusOr<std::optional<int64_t>> number = spec["leaseDurationSeconds"].OptionalInt();
  if (number.ok()) lease.duration_seconds = *number;  // another type: ours is used
  if (number = spec["leaseTransitions"].OptionalInt(); number.ok()) {
    lease.transitions = number->value_or(0);
  }
  if (absl::Status status = metadata["labels"].ReadStringMap(lease.labels); !status.ok()) {
    return status;
  }
  if (absl::Status status = metadata["annotations"].ReadStringMap(lease.annotations);
      !status.ok()) {
    return status;
  }
  return lease;
}

}  // namespace

bool LeaseElection::Write(const absl::StatusOr<std::string>& written) {
  if (!written.ok()) {
    last_error_ = std::string(written.status().message());
    return false;
  }
  last_error_.clear();
  return true;
}

bool LeaseElection::Tick(absl::Time now) {
  const std::string collection =
      absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", options_.namespace_name, "/leases");
  const std::string path = absl::StrCat(collection, "/", options_.name);
  const int64_t seconds = std::max<int64_t>(1, absl::ToInt64Seconds(options_.duration));
  next_tick_ = now + options_.duration / 3;
  absl::StatusOr<net::HttpResponse> current = client_.Call({.method = "GET", .path = path});
  if (!current.ok()) {
    last_error_ = std::string(current.status().message());
    return leading_ = false;
  }
  Json metadata = {{"name", options_.name}, {"namespace", options_.namespace_name}};
  Json spec = {{"holderIdentity", options_.identity},
               {"leaseDurationSeconds", seconds},
               {"acquireTime", MicroTime(now)},
               {"renewTime", MicroTime(now)},
               {"leaseTransitions", 0}};
  auto lease_body = [&] {
    return Json{{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", metadata},
                {"spec", spec}}
        .dump();
  };
  if (current->status == 404) return leading_ = Write(client_.Create(collection, lease_body()));
  if (current->status != 200) {
    last_error_ = std::string(ApiError("GET", path, *current).message());
    return leading_ = false;
  }
  absl::StatusOr<ReadLease> read = ParseLease(current->body);
  if (!read.ok()) {
    last_error_ = absl::StrCat(path, ": not a Lease: ", read.status().message());
    return leading_ = false;
  }
  if (read->holder != options_.identity) {
    absl::Time renewed = absl::InfinitePast();
    std::string error;
    if (!read->renew_time.empty()) {
      absl::ParseTime(absl::RFC3339_full, read->renew_time, &renewed, &error);
    }
    const int64_t held_for = read->duration_seconds.value_or(seconds);
    if (!read->holder.empty() && renewed + absl::Seconds(held_for) > now) {
      return leading_ = false;  // another replica leads; ask again in duration / 3
    }
    spec["leaseTransitions"] = read->transitions + 1;
  } else {
    spec["leaseTransitions"] = read->transitions;
    if (!read->acquire_time.empty()) spec["acquireTime"] = read->acquire_time;
  }
  metadata["resourceVersion"] = read->resource_version;  // a concurrent writer gets 409
  if (!read->labels.empty()) metadata["labels"] = read->labels;
  if (!read->annotations.empty()) metadata["annotations"] = read->annotations;
  return leading_ = Write(client_.Update(path, lease_body()));
}

}  // namespace carbonroute::kube
