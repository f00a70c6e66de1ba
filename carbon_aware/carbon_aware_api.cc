#include "carbon_aware/carbon_aware_api.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/printed_number.h"
#include "carbon_aware/emissions_math.h"
#include "carbon_aware/sdk_time.h"
#include "net/url.h"
#include "nlohmann/json.hpp"

namespace carbonroute::carbon_aware {

using Errors = CarbonAwareApi::Errors;

namespace {

using Json = nlohmann::ordered_json;

constexpr char kJson[] = "application/json; charset=utf-8";
constexpr char kProblemJson[] = "application/problem+json; charset=utf-8";
// RFC 9110's section for each status, as ASP.NET Core's ProblemDetails defaults name it.
constexpr char kBadRequestType[] = "https://tools.ietf.org/html/rfc9110#section-15.5.1";
constexpr char kUnavailableType[] = "https://tools.ietf.org/html/rfc9110#section-15.6.4";

void AddError(Errors& errors, const std::string& key, std::string message) {
  for (auto& [name, messages] : errors) {
    if (name == key) {
      messages.push_back(std::move(message));
      return;
    }
  }
  errors.push_back({key, {std::move(message)}});
}

// A W3C trace-context id, as ASP.NET Core puts in `traceId`.
std::string TraceId() {
  absl::BitGen random;
  return absl::StrFormat("00-%016x%016x-%016x-00", absl::Uniform<uint64_t>(random),
                         absl::Uniform<uint64_t>(random), absl::Uniform<uint64_t>(random));
}

ApiResponse Problem(int status, const char* type, const std::string& title,
                    const std::string& detail, const Errors& errors) {
  Json body = {{"type", type}, {"title", title}, {"status", status}};
  if (!detail.empty()) body["detail"] = detail;
  Json errors_json = Json::object();
  for (const auto& [name, messages] : errors) errors_json[name] = messages;
  body["errors"] = errors_json;
  body["traceId"] = TraceId();
  return {status, kProblemJson, body.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

// Model binding failed (a value that is not of its parameter's type).
ApiResponse BindingProblem(const Errors& errors) {
  return Problem(400, kBadRequestType, "One or more validation errors occurred.", "", errors);
}

// The SDK's ArgumentException, answered by its HttpResponseExceptionFilter.
ApiResponse ArgumentProblem(const std::string& detail, const Errors& errors,
                            const std::string& title = "ArgumentException") {
  return Problem(400, kBadRequestType, title, detail, errors);
}

ApiResponse Unavailable(const std::string& detail) {
  return Problem(503, kUnavailableType, "ServiceUnavailable", detail, {});
}

// Names are echoed as asked; bytes that are not UTF-8 are written as U+FFFD, never thrown on.
ApiResponse Ok(const Json& body) {
  return {200, kJson, body.dump(-1, ' ', false, Json::error_handler_t::replace)};
}
ApiResponse NoContent() { return {204, kJson, ""}; }

// Reads the optional time parameter `name`; a malformed one is a binding error.
std::optional<absl::Time> TimeParameter(absl::string_view query, const std::string& name,
                                        Errors& binding) {
  std::optional<std::string> text = net::QueryParameter(query, name, net::NameCase::kIgnore);
  if (!text.has_value() || text->empty()) return std::nullopt;
  absl::StatusOr<absl::Time> t = ParseDateTimeOffset(*text);
  if (t.ok()) return *t;
  AddError(binding, name, absl::StrCat("The value '", *text, "' is not valid for ", name, "."));
  return std::nullopt;
}

std::vector<std::string> LocationParameters(absl::string_view query) {
  std::vector<std::string> locations;
  for (std::string& location : net::QueryParameters(query, "location", net::NameCase::kIgnore)) {
    if (!location.empty()) locations.push_back(std::move(location));
  }
  return locations;
}

// CarbonAwareParameters' StartBeforeEnd: only when both are given.
void CheckStartBeforeEnd(const std::optional<absl::Time>& start,
                         const std::optional<absl::Time>& end, const std::string& start_name,
                         const std::string& end_name, Errors& errors) {
  if (start.has_value() && end.has_value() && !(*start < *end)) {
    AddError(errors, start_name, absl::StrCat(start_name, " must be before ", end_name));
  }
}

std::vector<EmissionsPoint> AsEmissions(const std::vector<ForecastPoint>& points,
                                        const std::string& location) {
  std::vector<EmissionsPoint> emissions;
  emissions.reserve(points.size());
  for (const ForecastPoint& point : points) {
    emissions.push_back(
        {location, point.valid_from, point.valid_to - point.valid_from, point.value});
  }
  return emissions;
}

// GSF.CarbonAware.Models.EmissionsData, as the emissions endpoints return it.
Json EmissionsDataJson(const EmissionsPoint& point) {
  return {{"location", point.location},
          {"time", FormatDateTimeOffset(point.time)},
          {"rating", PrintedNumber(point.rating)},
          {"duration", FormatTimeSpan(point.duration)}};
}

// EmissionsDataDTO, as the forecast's points.
Json EmissionsDataDtoJson(const EmissionsPoint& point) {
  return {{"location", point.location},
          {"timestamp", FormatDateTimeOffset(point.time)},
          {"duration", static_cast<int>(absl::ToInt64Minutes(point.duration))},
          {"value", PrintedNumber(point.rating)}};
}

Json PointsJson(const std::vector<EmissionsPoint>& points, Json (*encode)(const EmissionsPoint&)) {
  Json array = Json::array();
  for (const EmissionsPoint& point : points) array.push_back(encode(point));
  return array;
}

}  // namespace

CarbonAwareApi::CarbonAwareApi(const CarbonAwareData& data, LocationNames names, const Clock& clock)
    : data_(data), names_(std::move(names)), clock_(clock) {}

std::vector<std::string> CarbonAwareApi::Paths() {
  return {"/emissions/bylocation",
          "/emissions/bylocations",
          "/emissions/bylocations/best",
          "/emissions/forecasts/current",
          "/emissions/average-carbon-intensity",
          "/locations"};
}

ApiResponse CarbonAwareApi::Handle(absl::string_view asked_path, absl::string_view query) const {
  const std::string path = absl::AsciiStrToLower(asked_path);  // ASP.NET Core's routing
  if (path == "/emissions/bylocation" || path == "/emissions/bylocations") {
    return EmissionsByLocations(query, /*best=*/false);
  }
  if (path == "/emissions/bylocations/best") return EmissionsByLocations(query, /*best=*/true);
  if (path == "/emissions/forecasts/current") return CurrentForecasts(query);
  if (path == "/emissions/average-carbon-intensity") return AverageCarbonIntensity(query);
  if (path == "/locations") return Locations();
  return Problem(404, "https://tools.ietf.org/html/rfc9110#section-15.5.5", "Not Found",
                 absl::StrCat("no such path: ", asked_path), {});
}

std::vector<std::string> CarbonAwareApi::GridLocations(const std::vector<std::string>& names,
                                                       Errors& errors) const {
  const std::vector<std::string> polled = data_.GridLocations();
  std::vector<std::string> grid;
  for (const std::string& name : names) {
    absl::StatusOr<std::string> found = names_.GridLocation(name, polled);
    if (!found.ok()) {
      AddError(errors, "location", std::string(found.status().message()));
    } else {
      grid.push_back(*found);
    }
  }
  return grid;
}

ApiResponse CarbonAwareApi::EmissionsByLocations(absl::string_view query, bool best) const {
  Errors binding;
  const std::optional<absl::Time> start = TimeParameter(query, "time", binding);
  const std::optional<absl::Time> end = TimeParameter(query, "toTime", binding);
  if (!binding.empty()) return BindingProblem(binding);
  const std::vector<std::string> locations = LocationParameters(query);
  Errors errors;
  if (locations.empty()) {
    return ArgumentProblem("Invalid parameters", {{"location", {"location is not set"}}});
  }
  CheckStartBeforeEnd(start, end, "time", "toTime", errors);
  if (end.has_value() && !start.has_value()) {
    AddError(errors, "time", "time must be defined if toTime is defined");
  }
  const std::vector<std::string> grid = GridLocations(locations, errors);
  if (!errors.empty()) return ArgumentProblem("Invalid parameters", errors);

  const absl::Time from = start.value_or(clock_.Now());
  const absl::Time to = end.value_or(from);
  std::vector<EmissionsPoint> found;
  for (std::size_t i = 0; i < locations.size(); ++i) {
    absl::StatusOr<std::vector<ForecastPoint>> observed =
        data_.Observed(grid[i], from, to > from ? to : from + absl::Seconds(1));
    if (!observed.ok()) return Unavailable(std::string(observed.status().message()));
    for (EmissionsPoint& point : AsEmissions(*observed, locations[i])) {
      found.push_back(std::move(point));
    }
  }
  if (best) found = OptimalPoints(found);
  if (found.empty()) return NoContent();
  return Ok(PointsJson(found, EmissionsDataJson));
}

ApiResponse CarbonAwareApi::CurrentForecasts(absl::string_view query) const {
  Errors binding;
  const std::optional<absl::Time> start = TimeParameter(query, "dataStartAt", binding);
  const std::optional<absl::Time> end = TimeParameter(query, "dataEndAt", binding);
  std::optional<int> window_minutes;
  if (std::optional<std::string> text =
          net::QueryParameter(query, "windowSize", net::NameCase::kIgnore);
      text.has_value() && !text->empty()) {
    int minutes = 0;
    if (absl::SimpleAtoi(*text, &minutes)) {
      window_minutes = minutes;
    } else {
      AddError(binding, "windowSize",
               absl::StrCat("The value '", *text, "' is not valid for windowSize."));
    }
  }
  if (!binding.empty()) return BindingProblem(binding);
  const std::vector<std::string> locations = LocationParameters(query);
  if (locations.empty()) {
    return ArgumentProblem("Invalid parameters", {{"location", {"location is not set"}}});
  }
  Errors errors;
  CheckStartBeforeEnd(start, end, "dataStartAt", "dataEndAt", errors);
  if (window_minutes.has_value() && *window_minutes < 0) {
    AddError(errors, "windowSize",
             absl::StrCat("windowSize must be 0 or more minutes, not ", *window_minutes));
  }
  const std::vector<std::string> grid = GridLocations(locations, errors);
  if (!errors.empty()) return ArgumentProblem("Invalid parameters", errors);

  const absl::Time now = clock_.Now();
  const absl::Duration window = absl::Minutes(window_minutes.value_or(0));
  Json answers = Json::array();
  for (std::size_t i = 0; i < locations.size(); ++i) {
    absl::StatusOr<CachedForecast> forecast = data_.Forecast(grid[i], now);
    if (!forecast.ok()) return Unavailable(std::string(forecast.status().message()));
    if (forecast->points.empty()) {
      return Unavailable(
          absl::StrCat("no forecast of ", grid[i],
                       " is cached yet (the collector fetches one at its next poll)"));
    }
    const std::vector<EmissionsPoint> points = AsEmissions(forecast->points, locations[i]);
    // ForecastHandler.ProcessAndValidateForecast and EmissionsForecast.Validate.
    const absl::Time min_time = points.front().time;
    const absl::Time max_time = points.back().time + points.back().duration;
    const absl::Time data_start_at = start.value_or(min_time);
    const absl::Time data_end_at = end.value_or(max_time);
    Errors invalid;
    if (data_start_at >= data_end_at) {
      AddError(invalid, "dataStartAt", "dataStartAt must be earlier than dataEndAt");
    }
    const std::string range = absl::StrCat("'", FormatDateTimeOffset(min_time), "' through '",
                                           FormatDateTimeOffset(max_time), "'");
    if (data_start_at < min_time || data_start_at > max_time) {
      AddError(
          invalid, "dataStartAt",
          absl::StrCat("dataStartAt must be within time range of the forecasted data, ", range));
    }
    if (data_end_at < min_time || data_end_at > max_time) {
      AddError(invalid, "dataEndAt",
               absl::StrCat("dataEndAt must be within time range of the forecasted data, ", range));
    }
    if (!invalid.empty()) return ArgumentProblem("Invalid EmissionsForecast", invalid);
    absl::StatusOr<std::vector<EmissionsPoint>> averaged = RollingAverage(
        FilterByDuration(points, data_start_at, data_end_at), window, data_start_at, data_end_at);
    if (!averaged.ok()) {
      return ArgumentProblem(std::string(averaged.status().message()), {},
                             "InvalidOperationException");
    }
    // EmissionsForecastDTO.FromEmissionsForecast: the bounds asked for, else
    // the first and last point's start.
    const absl::Time shown_start =
        start.value_or(averaged->empty() ? data_start_at : averaged->front().time);
    const absl::Time shown_end =
        end.value_or(averaged->empty() ? data_end_at : averaged->back().time);
    answers.push_back(
        {{"generatedAt", FormatDateTimeOffset(forecast->fetched_at)},
         {"requestedAt", FormatDateTimeOffset(now)},
         {"location", locations[i]},
         {"dataStartAt", FormatDateTimeOffset(shown_start)},
         {"dataEndAt", FormatDateTimeOffset(shown_end)},
         {"windowSize", window_minutes.value_or(0)},
         {"optimalDataPoints", PointsJson(OptimalPoints(*averaged), EmissionsDataDtoJson)},
         {"forecastData", PointsJson(*averaged, EmissionsDataDtoJson)}});
  }
  return Ok(answers);
}

ApiResponse CarbonAwareApi::AverageCarbonIntensity(absl::string_view query) const {
  Errors binding;
  const std::optional<absl::Time> start = TimeParameter(query, "startTime", binding);
  const std::optional<absl::Time> end = TimeParameter(query, "endTime", binding);
  if (!binding.empty()) return BindingProblem(binding);
  const std::optional<std::string> location =
      net::QueryParameter(query, "location", net::NameCase::kIgnore);
  Errors errors;
  if (!location.has_value() || location->empty()) {
    AddError(errors, "location", "location is not set");
  }
  if (!start.has_value()) AddError(errors, "startTime", "startTime is not set");
  if (!end.has_value()) AddError(errors, "endTime", "endTime is not set");
  if (!errors.empty()) return ArgumentProblem("Invalid parameters", errors);
  CheckStartBeforeEnd(start, end, "startTime", "endTime", errors);
  absl::StatusOr<std::string> grid = names_.GridLocation(*location, data_.GridLocations());
  if (!grid.ok()) AddError(errors, "location", std::string(grid.status().message()));
  if (!errors.empty()) return ArgumentProblem("Invalid parameters", errors);

  absl::StatusOr<std::vector<ForecastPoint>> observed = data_.Observed(*grid, *start, *end);
  if (!observed.ok()) return Unavailable(std::string(observed.status().message()));
  absl::StatusOr<double> mean = AverageOverPeriod(AsEmissions(*observed, *location), *start, *end);
  if (!mean.ok()) {
    const std::string message(mean.status().message());
    return ArgumentProblem(message, {},
                           absl::StartsWith(message, "AverageOverPeriod")
                               ? "InvalidOperationException"
                               : "ArgumentException");
  }
  return Ok(Json{{"location", *location},
                 {"startTime", FormatDateTimeOffset(*start)},
                 {"endTime", FormatDateTimeOffset(*end)},
                 {"carbonIntensity", PrintedNumber(*mean)}});
}

ApiResponse CarbonAwareApi::Locations() const {
  const std::vector<NamedLocation> all = names_.All(data_.GridLocations());
  if (all.empty()) return NoContent();
  Json body = Json::object();
  for (const NamedLocation& location : all) {
    body[location.name] = {
        {"latitude", location.latitude.has_value() ? Json(*location.latitude) : Json(nullptr)},
        {"longitude", location.longitude.has_value() ? Json(*location.longitude) : Json(nullptr)},
        {"name", location.name}};
  }
  return Ok(body);
}

}  // namespace carbonroute::carbon_aware
