#include "kube/json_view.h"

#include <simdjson.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace carbonroute::kube {
namespace {

using simdjson::dom::element;

static_assert(sizeof(element) <= 16 && alignof(element) <= 8 &&
                  std::is_trivially_copyable_v<element>,
              "JsonField keeps a dom::element in 16 bytes");

element Load(const unsigned char* bytes) {
  element value;
  std::memcpy(static_cast<void*>(&value), bytes, sizeof(element));
  return value;
}

void Store(const element& value, unsigned char* bytes) {
  std::memcpy(bytes, static_cast<const void*>(&value), sizeof(element));
}

}  // namespace

struct JsonDocument::Parser {
  simdjson::dom::parser parser;
};

JsonDocument::JsonDocument() : parser_(std::make_unique<Parser>()) {}
JsonDocument::~JsonDocument() = default;

absl::StatusOr<JsonField> JsonDocument::Parse(absl::string_view json, absl::string_view what) {
  what_ = std::string(what);
  element root;
  if (auto error = parser_->parser.parse(json.data(), json.size()).get(root)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not JSON: ", simdjson::error_message(error)));
  }
  JsonField field;
  field.document_ = this;
  field.present_ = !root.is_null();
  Store(root, field.element_);
  return field;
}

JsonField JsonField::Child(std::string path) const {
  JsonField child;
  child.document_ = document_;
  child.path_ = std::move(path);
  return child;
}

bool JsonField::is_object() const { return present_ && Load(element_).is_object(); }
bool JsonField::is_array() const { return present_ && Load(element_).is_array(); }
bool JsonField::is_string() const { return present_ && Load(element_).is_string(); }

JsonField JsonField::operator[](absl::string_view key) const {
  JsonField child = Child(path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key));
  simdjson::dom::object object;
  element value;
  if (!present_ || Load(element_).get_object().get(object) ||
      object.at_key(std::string_view(key.data(), key.size())).get(value) || value.is_null()) {
    return child;
  }
  child.present_ = true;
  Store(value, child.element_);
  return child;
}

absl::Status JsonField::Error(absl::string_view problem) const {
  const std::string& what = document_ != nullptr ? document_->what() : std::string();
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": ", path_.empty() ? "(root)" : path_, ": ", problem));
}

absl::StatusOr<std::string> JsonField::OptionalString() const {
  if (!present_) return std::string();
  std::string_view text;
  if (Load(element_).get_string().get(text)) return Error("expected a string");
  return std::string(text);
}

absl::StatusOr<std::string> JsonField::RequiredString() const {
  std::string_view text;
  if (!present_ || Load(element_).get_string().get(text) || text.empty()) {
    return Error("expected a non-empty string");
  }
  return std::string(text);
}

absl::StatusOr<bool> JsonField::OptionalBool() const {
  if (!present_) return false;
  bool value = false;
  if (Load(element_).get_bool().get(value)) return Error("expected a boolean");
  return value;
}

absl::StatusOr<std::optional<int64_t>> JsonField::OptionalInt() const {
  if (!present_) return std::optional<int64_t>();
  int64_t value = 0;
  if (Load(element_).get_int64().get(value)) return Error("expected an integer");
  return std::optional<int64_t>(value);
}

std::string JsonField::Minified() const {
  if (!present_) return "null";
  return simdjson::minify(Load(element_));
}

absl::StatusOr<std::optional<double>> JsonField::OptionalNumber() const {
  if (!present_) return std::optional<double>();
  const element value = Load(element_);
  if (int64_t whole = 0; !value.get_int64().get(whole)) {
    return std::optional<double>(static_cast<double>(whole));
  }
  double number = 0;
  if (value.get_double().get(number)) return Error("expected a number");
  return std::optional<double>(number);
}

absl::Status JsonField::ExpectObjectOrMissing() const {
  if (present_ && !Load(element_).is_object()) return Error("expected an object");
  return absl::OkStatus();
}

absl::Status JsonField::RequireObject() const {
  if (!is_object()) return Error("expected an object");
  return absl::OkStatus();
}

absl::Status JsonField::ForEachMember(
    const std::function<absl::Status(absl::string_view, const JsonField&)>& visit) const {
  if (!present_) return absl::OkStatus();
  simdjson::dom::object object;
  if (Load(element_).get_object().get(object)) return Error("expected an object");
  for (const auto [key_view, value] : object) {
    const absl::string_view key(key_view.data(), key_view.size());
    JsonField child = Child(path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key));
    child.present_ = !value.is_null();
    Store(value, child.element_);
    if (absl::Status status = visit(key, child); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status JsonField::ForEachElement(
    const std::function<absl::Status(const JsonField&)>& visit) const {
  if (!present_) return absl::OkStatus();
  simdjson::dom::array array;
  if (Load(element_).get_array().get(array)) return Error("expected an array");
  std::size_t index = 0;
  for (const element value : array) {
    JsonField child = Child(absl::StrCat(path_, "[", index++, "]"));
    child.present_ = !value.is_null();
    Store(value, child.element_);
    if (absl::Status status = visit(child); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status JsonField::ReadStringMap(std::map<std::string, std::string>& out) const {
  return ForEachMember([&out](absl::string_view key, const JsonField& value) -> absl::Status {
    absl::StatusOr<std::string> text = value.OptionalString();
    if (!text.ok()) return text.status();
    out[std::string(key)] = *std::move(text);
    return absl::OkStatus();
  });
}

std::string DescribeStatus(const JsonField& status) {
  std::string reason = status["reason"].OptionalString().value_or("");
  std::string message = status["message"].OptionalString().value_or("");
  if (reason.empty()) return message;
  if (message.empty()) return reason;
  return absl::StrCat(reason, ": ", message);
}

std::string DescribeStatus(absl::string_view body) {
  JsonDocument document;
  absl::StatusOr<JsonField> root = document.Parse(body, "Status");
  if (root.ok() && root->is_object()) {
    std::string text = DescribeStatus(*root);
    if (!text.empty()) return text;
  }
  constexpr std::size_t kLongest = 200;
  return body.size() <= kLongest ? std::string(body)
                                 : absl::StrCat(body.substr(0, kLongest), "...");
}

std::string StringOrNote(const JsonField& field, std::string& problem) {
  absl::StatusOr<std::string> text = field.OptionalString();
  if (!text.ok()) {
    if (problem.empty()) problem = absl::StrCat(field.path(), ": expected a string");
    return "";
  }
  return *text;
}

std::optional<double> NumberOrNote(const JsonField& field, bool positive, std::string& problem) {
  absl::StatusOr<std::optional<double>> number = field.OptionalNumber();
  if (!number.ok()) {
    if (problem.empty()) problem = absl::StrCat(field.path(), ": expected a number");
    return std::nullopt;
  }
  if (*number && (!std::isfinite(**number) || **number < 0 || (positive && **number == 0))) {
    if (problem.empty()) {
      problem = absl::StrCat(field.path(), ": expected a number ", positive ? "> 0" : "≥ 0",
                             ", got ", **number);
    }
    return std::nullopt;
  }
  return *number;
}

}  // namespace carbonroute::kube
