// File: contract/rtt_exporter.h
//
// Who measured an RTT: carbonroute's own prober, or an exporter a cluster
// already runs, read through Prometheus (`--rtt-source`,
// model_sources/rtt_sources.h). A measured RTT row keeps it, so that reasons
// and the status page can say it, with what a reader must know of that
// exporter's numbers (its caveat).
// Thread safety: constants and pure functions.
#ifndef CARBONROUTE_CONTRACT_RTT_EXPORTER_H_
#define CARBONROUTE_CONTRACT_RTT_EXPORTER_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace carbonroute {

enum class RttExporter : uint8_t {
  kCarbonroute,      // carbonroute_rtt_seconds: the collectors' ICMP/TCP probes
  kGoldpinger,       // https://github.com/bloomberg/goldpinger
  kMonlat,           // https://github.com/bonavadeur/monlat
  kSmokepingProber,  // https://github.com/SuperQ/smokeping_prober
};

inline constexpr RttExporter kRttExporters[] = {RttExporter::kCarbonroute, RttExporter::kGoldpinger,
                                                RttExporter::kMonlat,
                                                RttExporter::kSmokepingProber};

// "carbonroute", "goldpinger", "monlat", "smokeping_prober": --rtt-source's values.
constexpr absl::string_view RttExporterName(RttExporter exporter) {
  switch (exporter) {
    case RttExporter::kCarbonroute:
      return "carbonroute";
    case RttExporter::kGoldpinger:
      return "goldpinger";
    case RttExporter::kMonlat:
      return "monlat";
    case RttExporter::kSmokepingProber:
      return "smokeping_prober";
  }
  return "";
}

constexpr std::optional<RttExporter> ParseRttExporter(absl::string_view name) {
  for (RttExporter exporter : kRttExporters) {
    if (name == RttExporterName(exporter)) return exporter;
  }
  return std::nullopt;
}

// What its RTTs are, for reasons ("" for carbonroute's own): the limits the
// adapters' queries work within (model_sources/rtt_sources.h).
constexpr absl::string_view RttExporterCaveat(RttExporter exporter) {
  switch (exporter) {
    case RttExporter::kGoldpinger:
      return "an HTTP /ping round trip, its 5-minute mean, as its histogram's smallest bucket is "
             "5 ms";
    case RttExporter::kMonlat:
      return "its latest single ping";
    case RttExporter::kSmokepingProber:
      return "the 5-minute mean of its ICMP echoes";
    case RttExporter::kCarbonroute:
      break;
  }
  return "";
}

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_RTT_EXPORTER_H_
