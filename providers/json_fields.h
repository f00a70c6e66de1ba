// File: providers/json_fields.h  (internal to providers/: only *.cc include it)
//
// Typed, error-naming access to simdjson DOM elements for the response
// parsers. Every error is kInvalidArgument "<what>: <field path>: ...".
#ifndef CARBONROUTE_PROVIDERS_JSON_FIELDS_H_
#define CARBONROUTE_PROVIDERS_JSON_FIELDS_H_

#include <simdjson.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "providers/iso_time.h"

namespace carbonroute::providers::json {

// Parses `body` with this thread's parser (its buffers are allocated once per
// thread and reused); kInvalidArgument naming `what` for malformed or
// truncated JSON. The element is valid until the next Parse on this thread:
// read what is needed before parsing again.
inline absl::StatusOr<simdjson::dom::element> Parse(absl::string_view body,
                                                    absl::string_view what) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(body.data(), body.size()).get(root); error) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": response is not valid JSON (",
                                                   simdjson::error_message(error),
                                                   "): ", body.substr(0, 80)));
  }
  return root;
}

inline absl::Status FieldError(absl::string_view what, absl::string_view field,
                               absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", field, ": ", problem));
}

inline absl::StatusOr<simdjson::dom::element> Field(simdjson::dom::element object,
                                                    absl::string_view key, absl::string_view what) {
  simdjson::dom::element value;
  if (object.at_key(std::string_view(key.data(), key.size())).get(value)) {
    return FieldError(what, key, "missing");
  }
  return value;
}

inline absl::StatusOr<std::string> String(simdjson::dom::element object, absl::string_view key,
                                          absl::string_view what) {
  absl::StatusOr<simdjson::dom::element> value = Field(object, key, what);
  if (!value.ok()) return value.status();
  std::string_view text;
  if (value->get_string().get(text)) return FieldError(what, key, "expected a string");
  return std::string(text);
}

// A number; nullopt for JSON null (providers use null for "no value").
inline absl::StatusOr<std::optional<double>> NullableNumber(simdjson::dom::element object,
                                                            absl::string_view key,
                                                            absl::string_view what) {
  absl::StatusOr<simdjson::dom::element> value = Field(object, key, what);
  if (!value.ok()) return value.status();
  if (value->is_null()) return std::optional<double>();
  double number = 0;
  if (value->get_double().get(number)) return FieldError(what, key, "expected a number");
  return std::optional<double>(number);
}

// An RFC 3339 timestamp ("2022-07-15T00:00:00+00:00", "2024-03-06T19:00:00.000Z"), or with
// `format` another absl::ParseTime format.
inline absl::StatusOr<absl::Time> Time(simdjson::dom::element object, absl::string_view key,
                                       absl::string_view what,
                                       const char* format = absl::RFC3339_full) {
  absl::StatusOr<std::string> text = String(object, key, what);
  if (!text.ok()) return text.status();
  absl::Time time;
  if (ParseIsoTime(*text, time)) return time;
  std::string error;
  if (!absl::ParseTime(format, *text, absl::UTCTimeZone(), &time, &error)) {
    return FieldError(what, key, absl::StrCat("\"", *text, "\" is not a timestamp: ", error));
  }
  return time;
}

}  // namespace carbonroute::providers::json

#endif  // CARBONROUTE_PROVIDERS_JSON_FIELDS_H_
