// File: test/keda/operator_decoding.h
//
// Reads a ConfigMap the way Azure's carbon-aware-keda-operator reads it
// (controllers/carbon_forecast_fetcher.go, at 275783dc278f): only
// binaryData[key], base64, a JSON array whose elements decode into Go's
// {Timestamp time.Time (RFC 3339), Value float64, Duration int (minutes),
// Location string}; a wrong type fails the whole decode, as Go's
// json.Unmarshal does. The current slot is the first element with
// timestamp <= now < timestamp + duration minutes (a duration of 0 never
// matches). Header-only, for tests.
#ifndef CARBONROUTE_TEST_KEDA_OPERATOR_DECODING_H_
#define CARBONROUTE_TEST_KEDA_OPERATOR_DECODING_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace carbonroute::testing {

struct OperatorRecord {
  std::string location;
  absl::Time timestamp;
  int64_t duration_minutes = 0;
  double value = 0;
};

inline absl::StatusOr<std::vector<OperatorRecord>> DecodeAsTheOperatorDoes(
    const nlohmann::json& configmap, const std::string& key) {
  if (!configmap.contains("binaryData") || !configmap["binaryData"].contains(key) ||
      !configmap["binaryData"][key].is_string()) {
    return absl::NotFoundError(absl::StrCat("no binaryData[", key, "]"));
  }
  std::string text;
  if (!absl::Base64Unescape(configmap["binaryData"][key].get<std::string>(), &text)) {
    return absl::InvalidArgumentError("binaryData is not base64");
  }
  const nlohmann::json array = nlohmann::json::parse(text, nullptr, false);
  if (!array.is_array()) return absl::InvalidArgumentError("not a JSON array: " + text);
  std::vector<OperatorRecord> records;
  for (const nlohmann::json& element : array) {
    OperatorRecord record;
    std::string error;
    if (!element.contains("timestamp") || !element["timestamp"].is_string() ||
        !absl::ParseTime(absl::RFC3339_full, element["timestamp"].get<std::string>(),
                         &record.timestamp, &error)) {
      return absl::InvalidArgumentError("timestamp is not RFC 3339: " + element.dump());
    }
    if (!element.contains("duration") || !element["duration"].is_number_integer()) {
      return absl::InvalidArgumentError("duration is not a whole number: " + element.dump());
    }
    if (!element.contains("value") || !element["value"].is_number()) {
      return absl::InvalidArgumentError("value is not a number: " + element.dump());
    }
    record.duration_minutes = element["duration"].get<int64_t>();
    record.value = element["value"].get<double>();
    record.location = element.value("location", "");
    records.push_back(std::move(record));
  }
  return records;
}

inline const OperatorRecord* CurrentSlot(const std::vector<OperatorRecord>& records,
                                         absl::Time now) {
  for (const OperatorRecord& record : records) {
    if (record.timestamp <= now &&
        now < record.timestamp + absl::Minutes(record.duration_minutes)) {
      return &record;
    }
  }
  return nullptr;
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_KEDA_OPERATOR_DECODING_H_
