#include "contract/forecast_api.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/printed_number.h"
#include "base/utc_time.h"

namespace carbonroute::forecast_api {
namespace {

using Json = nlohmann::json;

absl::Status FieldError(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("forecast answer: ", field, ": ", problem));
}

absl::StatusOr<const Json*> Field(const Json& object, const char* key, absl::string_view path) {
  auto it = object.find(key);
  if (it == object.end()) return FieldError(absl::StrCat(path, key), "missing");
  return &*it;
}

absl::StatusOr<std::string> StringField(const Json& object, const char* key,
                                        absl::string_view path) {
  absl::StatusOr<const Json*> value = Field(object, key, path);
  if (!value.ok()) return value.status();
  if (!(*value)->is_string()) return FieldError(absl::StrCat(path, key), "not a string");
  return (*value)->get<std::string>();
}

absl::StatusOr<absl::Time> TimeField(const Json& object, const char* key, absl::string_view path) {
  absl::StatusOr<std::string> text = StringField(object, key, path);
  if (!text.ok()) return text.status();
  absl::Time t;
  if (!absl::ParseTime(absl::RFC3339_full, *text, &t, nullptr)) {
    return FieldError(absl::StrCat(path, key), absl::StrCat("\"", *text, "\" is not RFC 3339"));
  }
  return t;
}

}  // namespace

std::string EncodeAnswer(const ForecastAnswer& answer) {
  Json series = Json::array();
  for (const ForecastSeries& s : answer.series) {
    Json points = Json::array();
    for (const ForecastPoint& p : s.points) {
      points.push_back({{"valid_from", UtcSeconds(p.valid_from)},
                        {"valid_to", UtcSeconds(p.valid_to)},
                        {"grams_per_kwh", PrintedNumber(p.value)}});
    }
    series.push_back({{"provider", s.provider},
                      {"emissions_type", std::string(EmissionsTypeName(s.emissions_type))},
                      {"points", std::move(points)}});
  }
  return Json{{"location", answer.location}, {"series", std::move(series)}}.dump();
}

std::string EncodeError(absl::string_view message) {
  return Json{{"error", std::string(message)}}.dump();
}

absl::StatusOr<ForecastAnswer> DecodeAnswer(absl::string_view json) {
  const Json root = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return FieldError("body", "not JSON");
  if (!root.is_object()) return FieldError("body", "not a JSON object");
  ForecastAnswer answer;
  absl::StatusOr<std::string> location = StringField(root, "location", "");
  if (!location.ok()) return location.status();
  answer.location = *std::move(location);
  absl::StatusOr<const Json*> series = Field(root, "series", "");
  if (!series.ok()) return series.status();
  if (!(*series)->is_array()) return FieldError("series", "not an array");
  for (std::size_t i = 0; i < (*series)->size(); ++i) {
    const Json& s = (**series)[i];
    const std::string path = absl::StrCat("series[", i, "].");
    if (!s.is_object()) return FieldError(absl::StrCat("series[", i, "]"), "not an object");
    ForecastSeries out;
    absl::StatusOr<std::string> provider = StringField(s, "provider", path);
    if (!provider.ok()) return provider.status();
    out.provider = *std::move(provider);
    absl::StatusOr<std::string> type = StringField(s, "emissions_type", path);
    if (!type.ok()) return type.status();
    std::optional<EmissionsType> emissions_type = ParseEmissionsType(*type);
    if (!emissions_type) {
      return FieldError(absl::StrCat(path, "emissions_type"),
                        absl::StrCat("\"", *type, "\" is neither average nor marginal"));
    }
    out.emissions_type = *emissions_type;
    absl::StatusOr<const Json*> points = Field(s, "points", path);
    if (!points.ok()) return points.status();
    if (!(*points)->is_array()) return FieldError(absl::StrCat(path, "points"), "not an array");
    for (std::size_t j = 0; j < (*points)->size(); ++j) {
      const Json& p = (**points)[j];
      const std::string point_path = absl::StrCat(path, "points[", j, "].");
      if (!p.is_object()) return FieldError(absl::StrCat(path, "points[", j, "]"), "not an object");
      ForecastPoint point;
      absl::StatusOr<absl::Time> from = TimeField(p, "valid_from", point_path);
      if (!from.ok()) return from.status();
      absl::StatusOr<absl::Time> to = TimeField(p, "valid_to", point_path);
      if (!to.ok()) return to.status();
      absl::StatusOr<const Json*> value = Field(p, "grams_per_kwh", point_path);
      if (!value.ok()) return value.status();
      if (!(*value)->is_number()) {
        return FieldError(absl::StrCat(point_path, "grams_per_kwh"), "not a number");
      }
      point.valid_from = *from;
      point.valid_to = *to;
      point.value = (*value)->get<double>();
      out.points.push_back(point);
    }
    answer.series.push_back(std::move(out));
  }
  return answer;
}

}  // namespace carbonroute::forecast_api
