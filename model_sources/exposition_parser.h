// File: model_sources/exposition_parser.h
//
// Parser of the Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), the format
// of every collector's /metrics:
//
//   # HELP name docstring        (escapes \\ and \n)
//   # TYPE name counter|gauge|histogram|summary|untyped
//   # any other comment          (ignored)
//   name{label="value",...} value [timestamp_ms]
//
// Label values unescape \\, \" and \n. Values are floats, with NaN, +Inf,
// -Inf (and Inf) as Prometheus writes them. Blank lines are ignored; lines may
// end in \r\n.
//
// Errors: kInvalidArgument "line N: ..." naming what was expected and what
// was found; nothing is returned for a document with any bad line.
//
// Thread safety: pure function.
#ifndef CARBONROUTE_MODEL_SOURCES_EXPOSITION_PARSER_H_
#define CARBONROUTE_MODEL_SOURCES_EXPOSITION_PARSER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::model_sources {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
  std::optional<int64_t> timestamp_ms;  // milliseconds since the Unix epoch

  // The label's value, or "" when absent (Prometheus treats both alike).
  const std::string& Label(const std::string& label) const;
};

struct FamilyInfo {
  std::string type;  // "gauge", "counter", ... ("" if no TYPE line)
  std::string help;
};

struct Exposition {
  std::vector<Sample> samples;                 // in document order
  std::map<std::string, FamilyInfo> families;  // by family name
};

absl::StatusOr<Exposition> ParseExposition(absl::string_view text);

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_EXPOSITION_PARSER_H_
