#include "hold/held_object.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace carbonroute::hold {
namespace {

using Json = nlohmann::json;

absl::Status FieldError(absl::string_view where, absl::string_view field,
                        absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", field, ": expected ", expected));
}

// The string at `key` of `object`, or "" when absent; an error when present and not a string.
absl::StatusOr<std::string> OptionalString(const Json& object, const char* key,
                                           absl::string_view where, absl::string_view field) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return FieldError(where, field, "a string");
  return it->get<std::string>();
}

absl::Status StringMap(const Json& object, const char* key, absl::string_view where,
                       absl::string_view field, std::map<std::string, std::string>& out,
                       bool* present = nullptr) {
  const auto it = object.find(key);
  if (present != nullptr) *present = it != object.end() && it->is_object();
  if (it == object.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_object()) return FieldError(where, field, "an object");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return FieldError(where, absl::StrCat(field, ".", k), "a string");
    out[k] = v.get<std::string>();
  }
  return absl::OkStatus();
}

absl::StatusOr<HeldObject> FromJson(const Json& item, HeldKind kind, absl::string_view where) {
  if (!item.is_object()) return FieldError(where, "", "an object");
  const auto metadata = item.find("metadata");
  if (metadata == item.end() || !metadata->is_object()) {
    return FieldError(where, "metadata", "an object");
  }
  HeldObject object;
  object.kind = kind;
  const auto name = metadata->find("name");
  if (name == metadata->end() || !name->is_string() || name->get<std::string>().empty()) {
    return FieldError(where, "metadata.name", "a string");
  }
  object.name = name->get<std::string>();
  absl::StatusOr<std::string> text =
      OptionalString(*metadata, "namespace", where, "metadata.namespace");
  if (!text.ok()) return text.status();
  object.namespace_name = *text;
  if (object.namespace_name.empty()) object.namespace_name = "default";
  if (text = OptionalString(*metadata, "uid", where, "metadata.uid"); !text.ok()) {
    return text.status();
  }
  object.uid = *text;
  if (text = OptionalString(*metadata, "resourceVersion", where, "metadata.resourceVersion");
      !text.ok()) {
    return text.status();
  }
  object.resource_version = *text;
  if (text = OptionalString(*metadata, "creationTimestamp", where, "metadata.creationTimestamp");
      !text.ok()) {
    return text.status();
  }
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, *text, &object.created, &error)) {
    return FieldError(where, "metadata.creationTimestamp", "an RFC 3339 time");
  }
  if (absl::Status s = StringMap(*metadata, "annotations", where, "metadata.annotations",
                                 object.annotations, &object.has_annotations);
      !s.ok()) {
    return s;
  }
  const auto spec = item.find("spec");
  if (spec == item.end() || !spec->is_object()) return FieldError(where, "spec", "an object");
  if (kind == HeldKind::kJob) {
    const auto suspend = spec->find("suspend");
    if (suspend != spec->end() && !suspend->is_null()) {
      if (!suspend->is_boolean()) return FieldError(where, "spec.suspend", "a boolean");
      object.suspended = suspend->get<bool>();
    }
    const auto tmpl = spec->find("template");
    if (tmpl != spec->end() && tmpl->is_object()) {
      const auto pod_spec = tmpl->find("spec");
      if (pod_spec != tmpl->end() && pod_spec->is_object()) {
        if (absl::Status s = StringMap(*pod_spec, "nodeSelector", where,
                                       "spec.template.spec.nodeSelector", object.node_selector);
            !s.ok()) {
          return s;
        }
      }
    }
    return object;
  }
  if (absl::Status s =
          StringMap(*spec, "nodeSelector", where, "spec.nodeSelector", object.node_selector);
      !s.ok()) {
    return s;
  }
  const auto gates = spec->find("schedulingGates");
  if (gates != spec->end() && !gates->is_null()) {
    if (!gates->is_array()) return FieldError(where, "spec.schedulingGates", "an array");
    for (std::size_t i = 0; i < gates->size(); ++i) {
      const Json& gate = (*gates)[i];
      const auto gate_name = gate.is_object() ? gate.find("name") : gate.end();
      if (!gate.is_object() || gate_name == gate.end() || !gate_name->is_string()) {
        return FieldError(where, absl::StrCat("spec.schedulingGates[", i, "].name"), "a string");
      }
      if (gate_name->get<std::string>() == kCleanWindowGate) object.gate = i;
    }
  }
  return object;
}

}  // namespace

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

absl::StatusOr<HeldObject> ParseHeldObject(absl::string_view json, HeldKind kind) {
  const Json parsed = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(KindName(kind), ": not JSON"));
  }
  return FromJson(parsed, kind, KindName(kind));
}

absl::StatusOr<ObjectList> ParseObjectList(absl::string_view json, HeldKind kind) {
  const std::string where = absl::StrCat(KindName(kind), "List");
  const Json parsed = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": not a JSON object"));
  }
  ObjectList list;
  const auto metadata = parsed.find("metadata");
  if (metadata != parsed.end() && metadata->is_object()) {
    absl::StatusOr<std::string> text =
        OptionalString(*metadata, "resourceVersion", where, "metadata.resourceVersion");
    if (!text.ok()) return text.status();
    list.resource_version = *text;
    if (text = OptionalString(*metadata, "continue", where, "metadata.continue"); !text.ok()) {
      return text.status();
    }
    list.continue_token = *text;
  }
  const auto items = parsed.find("items");
  if (items == parsed.end() || items->is_null()) return list;
  if (!items->is_array()) return FieldError(where, "items", "an array");
  for (std::size_t i = 0; i < items->size(); ++i) {
    absl::StatusOr<HeldObject> object =
        FromJson((*items)[i], kind, absl::StrCat(where, ": items[", i, "]"));
    if (!object.ok()) return object.status();
    list.items.push_back(*std::move(object));
  }
  return list;
}

}  // namespace carbonroute::hold
