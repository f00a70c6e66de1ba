// File: kube/json_view.h
//
// How every room reads a Kubernetes API object: a parsed JSON document
// (`JsonDocument`) and read-only views of its values (`JsonField`) that
// remember their path, so an error names the field the way a user finds it
// in `kubectl get -o json`: "NodeList: items[3].metadata.name: expected a
// string". simdjson parses (docs/architecture.md, "JSON: which library for
// what": measured on a 5,000-Node list in bench/kube_json_benchmark.cc); it
// stays inside json_view.cc, so no other header pulls it in.
//
// Absent members read as absent (`missing()`); `null` reads as absent too,
// as the API server omits or nulls unset fields alike. Optional* accessors
// answer the zero value for an absent member and an error for a present
// member of the wrong type. The input is untrusted (fuzzed in test/fuzz/).
//
// Ownership: a JsonField points into its JsonDocument, which must outlive it
// and not be parsed again while it is used.
// Errors: kInvalidArgument "<what>: <path>: <problem>"; `what` is given to
// Parse ("NodeList", "watch event", "Lease").
// Thread safety: a JsonDocument is used by one thread at a time; views are
// plain values.
#ifndef CARBONROUTE_KUBE_JSON_VIEW_H_
#define CARBONROUTE_KUBE_JSON_VIEW_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::kube {

class JsonDocument;

class JsonField {
 public:
  // The path from the document's root: "" for the root, "items[3].metadata.name".
  const std::string& path() const { return path_; }
  bool missing() const { return !present_; }
  bool is_object() const;
  bool is_array() const;
  bool is_string() const;

  // A member ("" path segments are joined with '.'); missing when absent or
  // when this is not an object.
  JsonField operator[](absl::string_view key) const;

  // "" / false / nullopt / 0 when absent; an error when of another type.
  absl::StatusOr<std::string> OptionalString() const;
  absl::StatusOr<bool> OptionalBool() const;
  absl::StatusOr<std::optional<int64_t>> OptionalInt() const;
  // An integer or a decimal number.
  absl::StatusOr<std::optional<double>> OptionalNumber() const;
  // A present, non-empty string.
  absl::StatusOr<std::string> RequiredString() const;
  // The value as minified JSON text; "null" when absent.
  std::string Minified() const;
  // An error unless absent or an object (`RequireObject`: unless an object).
  absl::Status ExpectObjectOrMissing() const;
  absl::Status RequireObject() const;

  // Each member of an object in document order, or each element of an
  // array; nothing when absent; an error when of another type, or the first
  // error `visit` returns.
  absl::Status ForEachMember(
      const std::function<absl::Status(absl::string_view key, const JsonField& value)>& visit)
      const;
  absl::Status ForEachElement(
      const std::function<absl::Status(const JsonField& value)>& visit) const;
  // An object of strings (labels, annotations, a nodeSelector) into `out`.
  absl::Status ReadStringMap(std::map<std::string, std::string>& out) const;

  // kInvalidArgument "<what>: <path>: <problem>".
  absl::Status Error(absl::string_view problem) const;

 private:
  friend class JsonDocument;
  JsonField() = default;
  JsonField Child(std::string path) const;

  const JsonDocument* document_ = nullptr;
  bool present_ = false;
  // simdjson's dom::element (a document pointer and a tape index), kept as
  // bytes so that this header does not include simdjson.
  alignas(8) unsigned char element_[16] = {};
  std::string path_;
};

class JsonDocument {
 public:
  JsonDocument();
  ~JsonDocument();
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  // Parses `json` (replacing what was parsed before; views of it become
  // invalid) and answers the root. kInvalidArgument "<what>: not JSON: ...".
  absl::StatusOr<JsonField> Parse(absl::string_view json, absl::string_view what);
  const std::string& what() const { return what_; }

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;  // reused: its buffers grow to the largest document
  std::string what_;
};

// A string member for a reader that gathers the first problem instead of
// failing (a policy's spec, whose problem goes into its status): "" and, when
// `problem` is still empty, "<path>: expected a string" on another type.
std::string StringOrNote(const JsonField& field, std::string& problem);
// A number member ≥ 0 (> 0 when `positive`) for the same readers: nullopt when
// absent, and nullopt with, when `problem` is still empty, "<path>: expected a
// number" on another type or "<path>: expected a number > 0, got -5" (≥ 0) out
// of range or not finite.
std::optional<double> NumberOrNote(const JsonField& field, bool positive, std::string& problem);

// "reason: message" of a Kubernetes Status body; the body itself, shortened
// to 200 bytes, when it is not one.
std::string DescribeStatus(absl::string_view body);
// The same of a Status already parsed (a watch ERROR event's object); "" when
// it has neither a reason nor a message.
std::string DescribeStatus(const JsonField& status);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_JSON_VIEW_H_
