#include "hold/held_object.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::hold {
namespace {

// An RFC 3339 time the API server wrote; absent when `field` is.
absl::StatusOr<std::optional<absl::Time>> OptionalTime(const kube::JsonField& field) {
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string text, field.OptionalString());
  if (text.empty()) return std::nullopt;
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &error)) {
    return field.Error("expected an RFC 3339 time");
  }
  return t;
}

// When a Job ended: its completionTime, or when it was marked Failed.
absl::Status ReadJobRun(const kube::JsonField& status, HeldObject& object) {
  CARBONROUTE_ASSIGN_OR_RETURN(object.started, OptionalTime(status["startTime"]));
  CARBONROUTE_ASSIGN_OR_RETURN(object.finished, OptionalTime(status["completionTime"]));
  if (object.finished) return absl::OkStatus();
  return status["conditions"].ForEachElement([&](const kube::JsonField& condition) -> absl::Status {
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string type, condition["type"].OptionalString());
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string value, condition["status"].OptionalString());
    if (type != "Failed" || value != "True") return absl::OkStatus();
    CARBONROUTE_ASSIGN_OR_RETURN(object.finished, OptionalTime(condition["lastTransitionTime"]));
    return absl::OkStatus();
  });
}

// When a Pod ended: the last of its containers' ends, once its phase is final.
absl::Status ReadPodRun(const kube::JsonField& status, HeldObject& object) {
  CARBONROUTE_ASSIGN_OR_RETURN(object.started, OptionalTime(status["startTime"]));
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string phase, status["phase"].OptionalString());
  if (phase != "Succeeded" && phase != "Failed") return absl::OkStatus();
  return status["containerStatuses"].ForEachElement(
      [&](const kube::JsonField& container) -> absl::Status {
        CARBONROUTE_ASSIGN_OR_RETURN(const std::optional<absl::Time> ended,
                                     OptionalTime(container["state"]["terminated"]["finishedAt"]));
        if (ended && (!object.finished || *ended > *object.finished)) object.finished = ended;
        return absl::OkStatus();
      });
}

// What its Pods request: a bad quantity is the ledger's problem, not the hold's.
void ReadRequests(const kube::JsonField& spec, HeldObject& object) {
  kube::WorkloadRequests requests;
  if (object.kind == HeldKind::kJob) {
    absl::StatusOr<std::optional<int64_t>> parallelism = spec["parallelism"].OptionalInt();
    if (!parallelism.ok()) {
      object.requests_error = std::string(parallelism.status().message());
      return;
    }
    requests.replicas = parallelism->value_or(1);
  }
  absl::StatusOr<kube::PodRequests> per_replica =
      kube::ReadPodRequests(object.kind == HeldKind::kJob ? spec["template"]["spec"] : spec);
  if (!per_replica.ok()) {
    object.requests_error = std::string(per_replica.status().message());
    return;
  }
  requests.per_replica = *per_replica;
  object.requests = requests;
}

}  // namespace

absl::StatusOr<HeldObject> ReadHeldObject(const kube::JsonField& item, HeldKind kind) {
  CARBONROUTE_RETURN_IF_ERROR(item.RequireObject());
  const kube::JsonField metadata = item["metadata"];
  CARBONROUTE_RETURN_IF_ERROR(metadata.RequireObject());
  HeldObject object;
  object.kind = kind;
  CARBONROUTE_ASSIGN_OR_RETURN(object.name, metadata["name"].RequiredString());
  CARBONROUTE_ASSIGN_OR_RETURN(object.namespace_name, metadata["namespace"].OptionalString());
  if (object.namespace_name.empty()) object.namespace_name = "default";
  CARBONROUTE_ASSIGN_OR_RETURN(object.uid, metadata["uid"].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(object.resource_version,
                               metadata["resourceVersion"].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string created,
                               metadata["creationTimestamp"].OptionalString());
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, created, &object.created, &error)) {
    return metadata["creationTimestamp"].Error("expected an RFC 3339 time");
  }
  const kube::JsonField annotations = metadata["annotations"];
  object.has_annotations = annotations.is_object();
  CARBONROUTE_RETURN_IF_ERROR(annotations.ReadStringMap(object.annotations));
  const kube::JsonField spec = item["spec"];
  CARBONROUTE_RETURN_IF_ERROR(spec.RequireObject());
  ReadRequests(spec, object);
  const kube::JsonField status = item["status"];
  CARBONROUTE_RETURN_IF_ERROR(status.ExpectObjectOrMissing());
  if (kind == HeldKind::kJob) {
    CARBONROUTE_RETURN_IF_ERROR(ReadJobRun(status, object));
    CARBONROUTE_ASSIGN_OR_RETURN(object.suspended, spec["suspend"].OptionalBool());
    const kube::JsonField pod_spec = spec["template"]["spec"];
    if (pod_spec.is_object()) {
      CARBONROUTE_RETURN_IF_ERROR(pod_spec["nodeSelector"].ReadStringMap(object.node_selector));
    }
    return object;
  }
  CARBONROUTE_RETURN_IF_ERROR(ReadPodRun(status, object));
  CARBONROUTE_RETURN_IF_ERROR(spec["nodeSelector"].ReadStringMap(object.node_selector));
  std::size_t index = 0;
  CARBONROUTE_RETURN_IF_ERROR(
      spec["schedulingGates"].ForEachElement([&](const kube::JsonField& gate) -> absl::Status {
        absl::StatusOr<std::string> name = gate["name"].RequiredString();
        if (!name.ok()) return gate["name"].Error("expected a string");
        if (*name == kCleanWindowGate) object.gate = index;
        ++index;
        return absl::OkStatus();
      }));
  return object;
}

absl::string_view KindName(HeldKind kind) { return kind == HeldKind::kJob ? "Job" : "Pod"; }

absl::string_view CollectionPath(HeldKind kind) {
  return kind == HeldKind::kJob ? "/apis/batch/v1/jobs" : "/api/v1/pods";
}

std::string HeldObject::Describe() const {
  return absl::StrCat(KindName(kind), " ", namespace_name, "/", name);
}

std::string HeldObject::Path() const {
  return absl::StrCat(kind == HeldKind::kJob ? "/apis/batch/v1" : "/api/v1", "/namespaces/",
                      namespace_name, kind == HeldKind::kJob ? "/jobs/" : "/pods/", name);
}

kube::ObjectReference HeldObject::Reference() const {
  return {.api_version = kind == HeldKind::kJob ? "batch/v1" : "v1",
          .kind = std::string(KindName(kind)),
          .namespace_name = namespace_name,
          .name = name,
          .uid = uid};
}

absl::StatusOr<ObjectList> ListHeld(const kube::KubeClient& client, HeldKind kind,
                                    const std::string& label_selector, int page_size) {
  ObjectList list;
  kube::ListRequest request;
  request.path = std::string(CollectionPath(kind));
  request.list_kind = absl::StrCat(KindName(kind), "List");
  request.label_selector = label_selector;
  request.page_size = page_size;
  absl::StatusOr<kube::ListResult> listed = kube::ListAll(
      client, request,
      [&](const kube::JsonField& item) -> absl::Status {
        absl::StatusOr<HeldObject> object = ReadHeldObject(item, kind);
        if (!object.ok()) return object.status();
        list.items.push_back(*std::move(object));
        return absl::OkStatus();
      },
      [&] { list.items.clear(); });
  if (!listed.ok()) return listed.status();
  list.resource_version = listed->resource_version;
  return list;
}

}  // namespace carbonroute::hold
