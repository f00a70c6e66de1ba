#include "providers/uk_carbon_intensity_parser.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "providers/json_fields.h"

namespace carbonroute::providers {
namespace {

constexpr char kTimeFormat[] = "%Y-%m-%d%ET%H:%M%Ez";

// The array of half-hour periods, whichever of the documented shapes `data` has.
absl::StatusOr<simdjson::dom::array> Periods(simdjson::dom::element data, absl::string_view what) {
  simdjson::dom::array array;
  simdjson::dom::object object;
  if (!data.get_object().get(object)) {  // regional forward window: {"regionid", "data": [...]}
    if (data["data"].get_array().get(array))
      return json::FieldError(what, "data.data", "expected an array");
    return array;
  }
  if (data.get_array().get(array))
    return json::FieldError(what, "data", "expected an array or object");
  simdjson::dom::element first;
  if (array.at(0).get(first) || first["from"].error() == simdjson::SUCCESS) return array;
  simdjson::dom::array nested;  // regionid / postcode: data[0].data
  if (first["data"].get_array().get(nested))
    return json::FieldError(what, "data[0]", "expected periods");
  return nested;
}

}  // namespace

absl::StatusOr<std::vector<Reading>> ParseUkCarbonIntensity(absl::string_view body,
                                                            absl::string_view location) {
  const std::string what = absl::StrCat("uk_carbon_intensity ", location);
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root, json::Parse(body, what));
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element data, json::Field(root, "data", what));
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::array periods, Periods(data, what));
  // All-regions shape (/regional, /regional/intensity/{from}/fw48h): each period lists
  // "regions"; the one whose regionid matches "region/<id>" is read.
  int64_t wanted_region = 0;
  absl::string_view rest = location;
  const bool by_region =
      absl::ConsumePrefix(&rest, "region/") && absl::SimpleAtoi(rest, &wanted_region);
  std::vector<Reading> readings;
  for (simdjson::dom::element period : periods) {
    CARBONROUTE_ASSIGN_OR_RETURN(absl::Time from, json::Time(period, "from", what, kTimeFormat));
    CARBONROUTE_ASSIGN_OR_RETURN(absl::Time to, json::Time(period, "to", what, kTimeFormat));
    simdjson::dom::element holder = period;
    simdjson::dom::array regions;
    if (!period["regions"].get_array().get(regions)) {
      if (!by_region)
        return json::FieldError(what, "regions",
                                "an all-regions answer needs a region/<id> location");
      bool found = false;
      for (simdjson::dom::element region : regions) {
        int64_t id = 0;
        if (!region["regionid"].get_int64().get(id) && id == wanted_region) {
          holder = region;
          found = true;
          break;
        }
      }
      if (!found) continue;
    }
    CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element intensity,
                                 json::Field(holder, "intensity", what));
    std::optional<double> actual;
    if (json::Field(intensity, "actual", what).ok()) {
      CARBONROUTE_ASSIGN_OR_RETURN(actual, json::NullableNumber(intensity, "actual", what));
    }
    CARBONROUTE_ASSIGN_OR_RETURN(std::optional<double> forecast,
                                 json::NullableNumber(intensity, "forecast", what));
    if (!actual && !forecast) continue;
    if (to <= from) return json::FieldError(what, "to", "must be after from");
    Reading reading;
    reading.value = actual ? *actual : *forecast;
    reading.estimated = !actual.has_value();
    reading.valid_from = from;
    reading.valid_to = to;
    readings.push_back(std::move(reading));
  }
  if (readings.empty())
    return absl::UnavailableError(absl::StrCat(what, ": no period has a value"));
  return readings;
}

}  // namespace carbonroute::providers
