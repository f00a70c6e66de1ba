#include "extender/pod_watch.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "extender/extender_protocol.h"

namespace carbonroute::extender {

absl::StatusOr<WatchedPod> ReadWatchedPod(const kube::JsonField& pod) {
  WatchedPod watched;
  const kube::JsonField metadata = pod["metadata"];
  watched.uid = metadata["uid"].OptionalString().value_or("");
  if (watched.uid.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(metadata["uid"].path(), ": missing"));
  }
  watched.namespace_name = metadata["namespace"].OptionalString().value_or("");
  watched.name = metadata["name"].OptionalString().value_or("");
  const kube::JsonField spec = pod["spec"];
  watched.scheduler_name = spec["schedulerName"].OptionalString().value_or("");
  if (watched.scheduler_name.empty()) watched.scheduler_name = kDefaultSchedulerName;
  watched.node = spec["nodeName"].OptionalString().value_or("");
  absl::StatusOr<kube::PodRequests> requests = kube::ReadPodRequests(spec);
  if (requests.ok()) watched.requests = *requests;
  watched.fit = ReadFitPod(spec);
  // Its latency limits, as the extender reads them; one it would refuse is left out.
  (void)metadata["labels"].ForEachMember(
      [&watched](absl::string_view key, const kube::JsonField& value) {
        absl::StatusOr<std::optional<std::pair<std::string, absl::Duration>>> limit =
            ReadDelayLabel(key, value.OptionalString().value_or(""));
        if (limit.ok() && *limit) watched.workload.max_rtt[(*limit)->first] = (*limit)->second;
        return absl::OkStatus();
      });
  const std::string phase = pod["status"]["phase"].OptionalString().value_or("");
  watched.finished = phase == "Succeeded" || phase == "Failed";
  (void)pod["status"]["conditions"].ForEachElement([&](const kube::JsonField& condition) {
    if (condition["type"].OptionalString().value_or("") != "PodScheduled") return absl::OkStatus();
    const std::string at = condition["lastTransitionTime"].OptionalString().value_or("");
    absl::Time time;
    std::string error;
    if (absl::ParseTime(absl::RFC3339_full, at, &time, &error)) watched.scheduled_at = time;
    return absl::OkStatus();
  });
  return watched;
}

PodWatch::PodWatch(const kube::KubeClient& client, Clock& clock, const ModelStore& models,
                   PodObserver& ledger, absl::Duration watch_timeout)
    : clock_(clock),
      models_(models),
      ledger_(ledger),
      list_watch_({.path = "/api/v1/pods", .list_kind = "PodList", .watch_timeout = watch_timeout},
                  client, clock, *this) {}

absl::Status PodWatch::OnListItem(const kube::JsonField& item) {
  listed_.insert(item["metadata"]["uid"].OptionalString().value_or(""));
  return OnEvent(kube::WatchEventType::kAdded, item);
}

void PodWatch::OnListed(const std::string& /*resource_version*/, int /*pages*/) {
  ledger_.Retain(listed_, models_.Get().get(), clock_.Now());
  listed_.clear();
  OnRecovered();
}

void PodWatch::OnFailure(const std::string& what) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mutex_);
  if (failure_.empty()) failing_since_ = now;
  failure_ = what;
  if (now - last_warning_ < kFailureWarningEvery) return;
  last_warning_ = now;
  spdlog::warn(absl::StrCat("savings ledger: the Pod watch fails (", what,
                            "): nothing is booked until it lists the Pods again (failing for ",
                            FailingFor(now), ")"));
}

void PodWatch::OnRecovered() {
  absl::MutexLock lock(&mutex_);
  if (failure_.empty()) return;
  spdlog::info(absl::StrCat("savings ledger: the Pod watch answers again after ",
                            FailingFor(clock_.Now()), "; booking"));
  failure_.clear();
  last_warning_ = absl::InfinitePast();
}

std::string PodWatch::Failing() const {
  absl::MutexLock lock(&mutex_);
  if (failure_.empty()) return "";
  return absl::StrCat(failure_, " (failing for ", FailingFor(clock_.Now()), ")");
}

std::string PodWatch::FailingFor(absl::Time now) const {
  return absl::FormatDuration(absl::Trunc(now - failing_since_, absl::Seconds(1)));
}

absl::Status PodWatch::OnEvent(kube::WatchEventType type, const kube::JsonField& object) {
  absl::StatusOr<WatchedPod> pod = ReadWatchedPod(object);
  if (!pod.ok()) return pod.status();
  const std::shared_ptr<const placement::PlacementModel> model = models_.Get();
  if (type == kube::WatchEventType::kDeleted) {
    ledger_.Deleted(pod->uid, model.get(), clock_.Now());
  } else {
    ledger_.Observed(*pod, model.get(), clock_.Now());
  }
  return absl::OkStatus();
}

NodeWatch::NodeWatch(const kube::KubeClient& client, Clock& clock, NodeObserver& observer)
    : observer_(observer),
      list_watch_({.path = "/api/v1/nodes", .list_kind = "NodeList"}, client, clock, *this) {}

absl::Status NodeWatch::OnListItem(const kube::JsonField& item) {
  absl::StatusOr<FitNode> node = ReadFitNode(item);
  if (!node.ok()) return absl::OkStatus();  // left out: no candidate, the others still are
  const std::string name = node->name;
  listing_[name] = *std::move(node);
  return absl::OkStatus();
}

void NodeWatch::OnListed(const std::string& /*resource_version*/, int /*pages*/) {
  observer_.NodesListed(std::move(listing_));
  listing_.clear();
}

absl::Status NodeWatch::OnEvent(kube::WatchEventType type, const kube::JsonField& object) {
  absl::StatusOr<FitNode> node = ReadFitNode(object);
  if (!node.ok()) {  // no longer a candidate: what was read of it before is stale
    const std::string name = object["metadata"]["name"].OptionalString().value_or("");
    if (!name.empty()) observer_.NodeDeleted(name);
    return absl::OkStatus();
  }
  if (type == kube::WatchEventType::kDeleted) {
    observer_.NodeDeleted(node->name);
  } else {
    observer_.NodeChanged(*std::move(node));
  }
  return absl::OkStatus();
}

}  // namespace carbonroute::extender
