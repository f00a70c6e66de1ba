#include "exporter/text_exposition.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace carbonroute::exporter {

void AppendSampleValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  // The shortest digits that read back exactly; written in fixed notation
  // unless the decimal exponent is below -4 or at least 21 (0.0001 but
  // 5e-05, as Go's strconv 'g' and prometheus-cpp write small bounds).
  char text[32];
  const std::to_chars_result scientific =
      std::to_chars(text, text + sizeof(text), value, std::chars_format::scientific);
  const char* e = std::find(text, scientific.ptr, 'e');
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), scientific.ptr, exponent);
  if (exponent < -4 || exponent >= 21) {
    out.append(text, scientific.ptr);
    return;
  }
  const std::to_chars_result fixed =
      std::to_chars(text, text + sizeof(text), value, std::chars_format::fixed);
  out.append(text, fixed.ptr);
}

void AppendLabelValue(std::string& out, absl::string_view value) {
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

namespace {

// "name_suffix{labels,extra=\"value\"} ": a sample line up to its value.
void AppendSampleHead(std::string& out, const prometheus::MetricFamily& family,
                      const prometheus::ClientMetric& metric, absl::string_view suffix = "",
                      absl::string_view extra_label = "", double extra_value = 0) {
  absl::StrAppend(&out, family.name, suffix);
  if (!metric.label.empty() || !extra_label.empty()) {
    out += '{';
    const char* separator = "";
    for (const prometheus::ClientMetric::Label& label : metric.label) {
      absl::StrAppend(&out, separator, label.name, "=\"");
      AppendLabelValue(out, label.value);
      out += '"';
      separator = ",";
    }
    if (!extra_label.empty()) {
      absl::StrAppend(&out, separator, extra_label, "=\"");
      AppendSampleValue(out, extra_value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
}

void AppendSampleTail(std::string& out, const prometheus::ClientMetric& metric) {
  if (metric.timestamp_ms != 0) absl::StrAppend(&out, " ", metric.timestamp_ms);
  out += '\n';
}

absl::string_view TypeName(prometheus::MetricType type) {
  switch (type) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Summary:
      return "summary";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Untyped:
      break;
  }
  return "untyped";
}

}  // namespace

void AppendFamily(std::string& out, const prometheus::MetricFamily& family) {
  if (!family.help.empty()) absl::StrAppend(&out, "# HELP ", family.name, " ", family.help, "\n");
  absl::StrAppend(&out, "# TYPE ", family.name, " ", TypeName(family.type), "\n");
  for (const prometheus::ClientMetric& metric : family.metric) {
    switch (family.type) {
      case prometheus::MetricType::Counter:
      case prometheus::MetricType::Gauge:
      case prometheus::MetricType::Untyped:
        AppendSampleHead(out, family, metric);
        AppendSampleValue(out, family.type == prometheus::MetricType::Counter ? metric.counter.value
                               : family.type == prometheus::MetricType::Gauge
                                   ? metric.gauge.value
                                   : metric.untyped.value);
        AppendSampleTail(out, metric);
        break;
      case prometheus::MetricType::Summary:
        AppendSampleHead(out, family, metric, "_count");
        absl::StrAppend(&out, metric.summary.sample_count);
        AppendSampleTail(out, metric);
        AppendSampleHead(out, family, metric, "_sum");
        AppendSampleValue(out, metric.summary.sample_sum);
        AppendSampleTail(out, metric);
        for (const prometheus::ClientMetric::Quantile& quantile : metric.summary.quantile) {
          AppendSampleHead(out, family, metric, "", "quantile", quantile.quantile);
          AppendSampleValue(out, quantile.value);
          AppendSampleTail(out, metric);
        }
        break;
      case prometheus::MetricType::Histogram: {
        const prometheus::ClientMetric::Histogram& histogram = metric.histogram;
        AppendSampleHead(out, family, metric, "_count");
        absl::StrAppend(&out, histogram.sample_count);
        AppendSampleTail(out, metric);
        AppendSampleHead(out, family, metric, "_sum");
        AppendSampleValue(out, histogram.sample_sum);
        AppendSampleTail(out, metric);
        double last = -std::numeric_limits<double>::infinity();
        for (const prometheus::ClientMetric::Bucket& bucket : histogram.bucket) {
          AppendSampleHead(out, family, metric, "_bucket", "le", bucket.upper_bound);
          absl::StrAppend(&out, bucket.cumulative_count);
          AppendSampleTail(out, metric);
          last = bucket.upper_bound;
        }
        if (last != std::numeric_limits<double>::infinity()) {
          AppendSampleHead(out, family, metric, "_bucket", "le",
                           std::numeric_limits<double>::infinity());
          absl::StrAppend(&out, histogram.sample_count);
          AppendSampleTail(out, metric);
        }
        break;
      }
    }
  }
}

void AppendFamilyHeader(std::string& out, absl::string_view name, absl::string_view help,
                        absl::string_view type) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace carbonroute::exporter
