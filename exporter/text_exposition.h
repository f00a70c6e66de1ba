// File: exporter/text_exposition.h
//
// Writing the Prometheus text exposition format 0.0.4 ourselves: the
// registry's families (AppendFamily: prometheus-cpp 1.0.1's TextSerializer
// prints every double with 16 significant digits, 552.6799999999999 for
// 552.68; Prometheus's own client libraries print the shortest text that
// reads back as the same double, as this does), the parts of /metrics that
// are too large to go through prometheus-cpp's Collect() copy (the per-peer
// probe series, exporter/peer_series_table.h), and the seam through which
// such parts join the page (exporter/metrics_page.h).
// Format: https://prometheus.io/docs/instrumenting/exposition_formats/
// ("Text format details": label values escape \, " and newline; values are
// Go floats, with +Inf, -Inf and NaN).
//
// Thread safety: the functions are pure. An ExpositionSource's Snapshot() may
// be called from any thread at once; each snapshot is used by one thread.
#ifndef CARBONROUTE_EXPORTER_TEXT_EXPOSITION_H_
#define CARBONROUTE_EXPORTER_TEXT_EXPOSITION_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "prometheus/metric_family.h"

namespace carbonroute::exporter {

// Appends `value` in the shortest form that reads back as the same double
// (std::to_chars; scientific below 1e-4 and from 1e21), or +Inf, -Inf, NaN.
void AppendSampleValue(std::string& out, double value);
// Appends `value` as a label value's text between the quotes (escaped).
void AppendLabelValue(std::string& out, absl::string_view value);
// Appends "# HELP name help\n# TYPE name type\n" (`help` has no \ or newline).
void AppendFamilyHeader(std::string& out, absl::string_view name, absl::string_view help,
                        absl::string_view type);

// Appends one family as prometheus-cpp's TextSerializer lays it out (HELP
// when there is help, TYPE, then each metric: a counter, gauge or untyped
// value; a summary's _count, _sum and quantiles; a histogram's _count, _sum
// and cumulative _bucket lines with le="+Inf" last; a timestamp when set),
// every double through AppendSampleValue.
void AppendFamily(std::string& out, const prometheus::MetricFamily& family);

// A page part frozen at one instant, written out piece by piece.
class ExpositionSnapshot {
 public:
  virtual ~ExpositionSnapshot() = default;
  // Appends the next whole lines to `out`, stopping once `out` holds
  // `target_bytes` or more; returns false once nothing is left (and then
  // appends nothing).
  virtual bool WriteSome(std::string& out, std::size_t target_bytes) = 0;
};

// Families of /metrics kept outside a prometheus::Registry. Each family must
// be one source's alone (a family's samples are contiguous on the page).
class ExpositionSource {
 public:
  virtual ~ExpositionSource() = default;
  // Every series of the source as of one instant.
  virtual std::unique_ptr<ExpositionSnapshot> Snapshot() const = 0;
};

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_TEXT_EXPOSITION_H_
