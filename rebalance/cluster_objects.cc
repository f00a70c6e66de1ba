#include "rebalance/cluster_objects.h"

#include "absl/strings/str_cat.h"
#include "extender/pod_watch.h"

namespace carbonroute::rebalance {
namespace {

constexpr char kMirrorAnnotation[] = "kubernetes.io/config.mirror";

std::optional<absl::Time> TimeAt(const kube::JsonField& field) {
  const std::string text = field.OptionalString().value_or("");
  absl::Time time;
  std::string error;
  if (text.empty() || !absl::ParseTime(absl::RFC3339_full, text, &time, &error))
    return std::nullopt;
  return time;
}

std::optional<OwnerRef> ControllerOf(const kube::JsonField& metadata) {
  std::optional<OwnerRef> found;
  (void)metadata["ownerReferences"].ForEachElement([&](const kube::JsonField& ref) {
    if (!ref["controller"].OptionalBool().value_or(false)) return absl::OkStatus();
    found = OwnerRef{.kind = ref["kind"].OptionalString().value_or(""),
                     .name = ref["name"].OptionalString().value_or(""),
                     .uid = ref["uid"].OptionalString().value_or("")};
    return absl::OkStatus();
  });
  return found;
}

}  // namespace

absl::StatusOr<RebalancePod> ReadRebalancePod(const kube::JsonField& pod) {
  absl::StatusOr<extender::WatchedPod> watched = extender::ReadWatchedPod(pod);
  if (!watched.ok()) return watched.status();
  RebalancePod read{.watched = *std::move(watched)};
  const kube::JsonField metadata = pod["metadata"];
  read.controller = ControllerOf(metadata);
  read.created = TimeAt(metadata["creationTimestamp"]).value_or(absl::UnixEpoch());
  read.deleting = !metadata["deletionTimestamp"].missing();
  read.mirror = !metadata["annotations"][kMirrorAnnotation].missing();
  (void)pod["spec"]["volumes"].ForEachElement([&](const kube::JsonField& volume) {
    if (!volume["emptyDir"].missing()) read.local_storage = true;
    return absl::OkStatus();
  });
  (void)pod["status"]["conditions"].ForEachElement([&](const kube::JsonField& condition) {
    if (condition["type"].OptionalString().value_or("") == "Ready") {
      read.ready = condition["status"].OptionalString().value_or("") == "True";
    }
    return absl::OkStatus();
  });
  return read;
}

kube::ObjectReference Workload::Reference() const {
  return {.api_version = "apps/v1",
          .kind = kind,
          .namespace_name = namespace_name,
          .name = name,
          .uid = uid};
}

std::string Workload::Describe() const {
  return absl::StrCat(kind, " ", namespace_name, "/", name);
}

absl::StatusOr<Workload> ReadWorkload(const kube::JsonField& object, const std::string& kind) {
  const kube::JsonField metadata = object["metadata"];
  Workload workload{.kind = kind,
                    .namespace_name = metadata["namespace"].OptionalString().value_or(""),
                    .name = metadata["name"].OptionalString().value_or(""),
                    .uid = metadata["uid"].OptionalString().value_or("")};
  if (workload.uid.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(metadata["uid"].path(), ": missing"));
  }
  (void)metadata["labels"].ReadStringMap(workload.labels);
  workload.scheduler_name =
      object["spec"]["template"]["spec"]["schedulerName"].OptionalString().value_or("");
  if (workload.scheduler_name.empty()) workload.scheduler_name = extender::kDefaultSchedulerName;
  if (kind == "ReplicaSet") workload.controller = ControllerOf(metadata);
  return workload;
}

const Workload* OwnerOf(const RebalancePod& pod, const std::map<std::string, Workload>& workloads) {
  if (!pod.controller) return nullptr;
  const auto direct = workloads.find(pod.controller->uid);
  if (direct == workloads.end() || direct->second.kind != pod.controller->kind) return nullptr;
  const Workload& owner = direct->second;
  if (owner.kind == "ReplicaSet" && owner.controller && owner.controller->kind == "Deployment") {
    const auto deployment = workloads.find(owner.controller->uid);
    if (deployment != workloads.end()) return &deployment->second;
  }
  return &owner;
}

}  // namespace carbonroute::rebalance
