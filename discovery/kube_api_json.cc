#include "discovery/kube_api_json.h"

#include <simdjson.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::discovery {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

absl::Status FieldError(absl::string_view what, absl::string_view field,
                        absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", field, ": ", problem));
}

// One parser per thread: its buffers are reused by every call on that thread.
absl::StatusOr<element> Parse(absl::string_view json, absl::string_view what) {
  thread_local simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not JSON: ", simdjson::error_message(error)));
  }
  return root;
}

// What an absent member reads as. A default-constructed dom::object or
// dom::array points at no document, so these are parsed once and shared
// (read-only, safe from any thread).
object EmptyObject() {
  static simdjson::dom::parser* const parser = new simdjson::dom::parser();
  static const object empty = [] {
    object result;
    if (parser->parse("{}", 2).get_object().get(result)) std::abort();  // cannot fail
    return result;
  }();
  return empty;
}

array EmptyArray() {
  static simdjson::dom::parser* const parser = new simdjson::dom::parser();
  static const array empty = [] {
    array result;
    if (parser->parse("[]", 2).get_array().get(result)) std::abort();  // cannot fail
    return result;
  }();
  return empty;
}

// An optional string member: "" when absent; an error when present but not a string.
absl::Status OptionalString(object holder, const char* key, std::string& out,
                            absl::string_view what, absl::string_view path) {
  element value;
  if (holder[key].get(value)) return absl::OkStatus();
  std::string_view text;
  if (value.get_string().get(text)) {
    return FieldError(what, absl::StrCat(path, key), "expected a string");
  }
  out.assign(text.data(), text.size());
  return absl::OkStatus();
}

absl::StatusOr<object> OptionalObject(object holder, const char* key, absl::string_view what,
                                      absl::string_view path) {
  element value;
  if (holder[key].get(value) || value.is_null()) return EmptyObject();
  object result;
  if (value.get_object().get(result)) {
    return FieldError(what, absl::StrCat(path, key), "expected an object");
  }
  return result;
}

absl::StatusOr<array> OptionalArray(object holder, const char* key, absl::string_view what,
                                    absl::string_view path) {
  element value;
  if (holder[key].get(value) || value.is_null()) return EmptyArray();
  array result;
  if (value.get_array().get(result)) {
    return FieldError(what, absl::StrCat(path, key), "expected an array");
  }
  return result;
}

// Reads a Node object; `path` prefixes field names in errors ("items[3].").
// `resource_version` receives metadata.resourceVersion.
absl::Status ReadNode(element value, absl::string_view what, const std::string& path,
                      KubeNode& node, std::string& resource_version) {
  object root;
  if (value.get_object().get(root)) return FieldError(what, path, "expected an object");
  CARBONROUTE_ASSIGN_OR_RETURN(object metadata, OptionalObject(root, "metadata", what, path));
  const std::string meta_path = absl::StrCat(path, "metadata.");
  element name;
  std::string_view name_text;
  if (metadata["name"].get(name) || name.get_string().get(name_text) || name_text.empty()) {
    return FieldError(what, absl::StrCat(meta_path, "name"), "expected a non-empty string");
  }
  node.name.assign(name_text.data(), name_text.size());
  CARBONROUTE_RETURN_IF_ERROR(
      OptionalString(metadata, "resourceVersion", resource_version, what, meta_path));
  CARBONROUTE_ASSIGN_OR_RETURN(object labels, OptionalObject(metadata, "labels", what, meta_path));
  const std::string label_path = absl::StrCat(meta_path, "labels.");
  CARBONROUTE_RETURN_IF_ERROR(OptionalString(labels, kRegionLabel, node.region, what, label_path));
  CARBONROUTE_RETURN_IF_ERROR(OptionalString(labels, kZoneLabel, node.zone, what, label_path));
  CARBONROUTE_RETURN_IF_ERROR(
      OptionalString(labels, kLocationLabel, node.location, what, label_path));
  CARBONROUTE_RETURN_IF_ERROR(
      OptionalString(labels, kWattTimeRegionLabel, node.watttime_region, what, label_path));

  CARBONROUTE_ASSIGN_OR_RETURN(object spec, OptionalObject(root, "spec", what, path));
  element unschedulable;
  if (!spec["unschedulable"].get(unschedulable) && !unschedulable.is_null() &&
      unschedulable.get_bool().get(node.unschedulable)) {
    return FieldError(what, absl::StrCat(path, "spec.unschedulable"), "expected a boolean");
  }

  CARBONROUTE_ASSIGN_OR_RETURN(object status, OptionalObject(root, "status", what, path));
  const std::string status_path = absl::StrCat(path, "status.");
  CARBONROUTE_ASSIGN_OR_RETURN(array addresses,
                               OptionalArray(status, "addresses", what, status_path));
  std::string internal, external;
  std::size_t i = 0;
  for (element entry : addresses) {
    const std::string entry_path = absl::StrCat(status_path, "addresses[", i++, "].");
    object address;
    if (entry.get_object().get(address)) {
      return FieldError(what, entry_path.substr(0, entry_path.size() - 1), "expected an object");
    }
    std::string type, text;
    CARBONROUTE_RETURN_IF_ERROR(OptionalString(address, "type", type, what, entry_path));
    CARBONROUTE_RETURN_IF_ERROR(OptionalString(address, "address", text, what, entry_path));
    if (type == "InternalIP" && internal.empty()) internal = text;
    if (type == "ExternalIP" && external.empty()) external = text;
  }
  node.address = internal.empty() ? external : internal;
  CARBONROUTE_ASSIGN_OR_RETURN(array conditions,
                               OptionalArray(status, "conditions", what, status_path));
  i = 0;
  for (element entry : conditions) {
    const std::string entry_path = absl::StrCat(status_path, "conditions[", i++, "].");
    object condition;
    if (entry.get_object().get(condition)) {
      return FieldError(what, entry_path.substr(0, entry_path.size() - 1), "expected an object");
    }
    std::string type, value_text;
    CARBONROUTE_RETURN_IF_ERROR(OptionalString(condition, "type", type, what, entry_path));
    CARBONROUTE_RETURN_IF_ERROR(OptionalString(condition, "status", value_text, what, entry_path));
    if (type == "Ready") node.ready = value_text == "True";
  }
  return absl::OkStatus();
}

std::string StatusText(object status) {
  std::string_view reason, message;
  if (status["reason"].get_string().get(reason)) reason = {};
  if (status["message"].get_string().get(message)) message = {};
  if (reason.empty()) return std::string(message);
  if (message.empty()) return std::string(reason);
  return absl::StrCat(absl::string_view(reason.data(), reason.size()), ": ",
                      absl::string_view(message.data(), message.size()));
}

}  // namespace

absl::StatusOr<KubeNode> ParseNode(absl::string_view json) {
  constexpr absl::string_view kWhat = "Node";
  CARBONROUTE_ASSIGN_OR_RETURN(element root, Parse(json, kWhat));
  KubeNode node;
  std::string resource_version;
  CARBONROUTE_RETURN_IF_ERROR(ReadNode(root, kWhat, "", node, resource_version));
  return node;
}

absl::StatusOr<NodeListPage> ParseNodeList(absl::string_view json) {
  constexpr absl::string_view kWhat = "NodeList";
  CARBONROUTE_ASSIGN_OR_RETURN(element root, Parse(json, kWhat));
  object list;
  if (root.get_object().get(list)) return FieldError(kWhat, "(root)", "expected an object");
  NodeListPage page;
  CARBONROUTE_ASSIGN_OR_RETURN(object metadata, OptionalObject(list, "metadata", kWhat, ""));
  CARBONROUTE_RETURN_IF_ERROR(
      OptionalString(metadata, "resourceVersion", page.resource_version, kWhat, "metadata."));
  CARBONROUTE_RETURN_IF_ERROR(
      OptionalString(metadata, "continue", page.continue_token, kWhat, "metadata."));
  CARBONROUTE_ASSIGN_OR_RETURN(array items, OptionalArray(list, "items", kWhat, ""));
  std::size_t i = 0;
  for (element item : items) {
    KubeNode& node = page.nodes.emplace_back();
    std::string ignored;
    CARBONROUTE_RETURN_IF_ERROR(
        ReadNode(item, kWhat, absl::StrCat("items[", i++, "]."), node, ignored));
  }
  return page;
}

absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line) {
  constexpr absl::string_view kWhat = "watch event";
  CARBONROUTE_ASSIGN_OR_RETURN(element root, Parse(line, kWhat));
  object event_object;
  if (root.get_object().get(event_object)) return FieldError(kWhat, "(root)", "expected an object");
  std::string type;
  CARBONROUTE_RETURN_IF_ERROR(OptionalString(event_object, "type", type, kWhat, ""));
  WatchEvent event;
  if (type == "ADDED") {
    event.type = WatchEvent::Type::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEvent::Type::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEvent::Type::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEvent::Type::kBookmark;
  } else if (type == "ERROR") {
    event.type = WatchEvent::Type::kError;
  } else {
    return FieldError(kWhat, "type", absl::StrCat("unknown event type \"", type, "\""));
  }
  element value;
  if (event_object["object"].get(value)) return FieldError(kWhat, "object", "missing");
  if (event.type == WatchEvent::Type::kError) {
    object status;
    if (value.get_object().get(status)) return FieldError(kWhat, "object", "expected a Status");
    int64_t code = 0;
    if (status["code"].get_int64().get(code)) code = 0;
    event.error_code = static_cast<int>(code);
    event.error_message = StatusText(status);
    return event;
  }
  if (event.type == WatchEvent::Type::kBookmark) {  // only metadata.resourceVersion is set
    object holder;
    if (value.get_object().get(holder)) return FieldError(kWhat, "object", "expected an object");
    CARBONROUTE_ASSIGN_OR_RETURN(object metadata,
                                 OptionalObject(holder, "metadata", kWhat, "object."));
    CARBONROUTE_RETURN_IF_ERROR(OptionalString(metadata, "resourceVersion", event.resource_version,
                                               kWhat, "object.metadata."));
    return event;
  }
  CARBONROUTE_RETURN_IF_ERROR(
      ReadNode(value, kWhat, "object.", event.node, event.resource_version));
  return event;
}

std::string DescribeStatus(absl::string_view json) {
  absl::StatusOr<element> root = Parse(json, "Status");
  object status;
  if (root.ok() && !root->get_object().get(status)) {
    std::string text = StatusText(status);
    if (!text.empty()) return text;
  }
  constexpr std::size_t kLongest = 200;
  return json.size() <= kLongest ? std::string(json)
                                 : absl::StrCat(json.substr(0, kLongest), "...");
}

}  // namespace carbonroute::discovery
