#include "scheduler-lite/simulate_command.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "base/usage.h"
#include "contract/intensity_trace.h"
#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"
#include "scheduler-lite/progress_bar.h"
#include "scheduler-lite/simulation_output.h"
#include "simulator/simulation_sites.h"

namespace carbonroute::scheduler_lite {

using simulator::BuildSiteTopology;
using simulator::Simulate;
using simulator::SimulationOptions;
using simulator::SimulationResult;
using simulator::SimulationSite;
using simulator::SimulationSteps;
using simulator::SiteTopology;
using simulator::SkippedSite;
namespace {

constexpr char kPrefix[] = "scheduler-lite simulate: ";

absl::StatusOr<SiteTopology> LoadTopology(const SimulateRequest& request,
                                          const IntensityTrace& trace) {
  absl::StatusOr<std::string> zones_text =
      ReadFileToString(request.region_zones_csv, "region → zone file");
  if (!zones_text.ok()) return zones_text.status();
  absl::StatusOr<std::map<std::string, std::string, std::less<>>> zones =
      ParseRegionLocationsCsv(*zones_text, request.region_zones_csv);
  if (!zones.ok()) return zones.status();
  absl::StatusOr<std::string> matrix_text = ReadFileToString(request.rtt_matrix_csv, "RTT matrix");
  if (!matrix_text.ok()) return matrix_text.status();
  absl::StatusOr<std::vector<RttMatrixEntry>> matrix =
      ParseRttMatrixCsv(*matrix_text, request.rtt_matrix_csv);
  if (!matrix.ok()) return matrix.status();
  return BuildSiteTopology(*zones, *matrix, trace);
}

// Site ids of the named origins; kInvalidArgument naming an unknown one.
absl::StatusOr<std::vector<std::size_t>> ResolveOrigins(const SimulateRequest& request,
                                                        const SiteTopology& topology) {
  std::vector<std::size_t> ids;
  for (const std::string& name : request.origins) {
    if (std::optional<std::size_t> site = topology.SiteOf(name)) {
      if (std::find(ids.begin(), ids.end(), *site) == ids.end()) ids.push_back(*site);
      continue;
    }
    if (const SkippedSite* skipped = topology.SkippedOf(name)) {
      return absl::InvalidArgumentError(absl::StrCat("--origins: \"", name, "\" (zone ",
                                                     skipped->zone, ") has no carbon data in ",
                                                     request.trace_csv, ": ", skipped->why));
    }
    std::vector<std::string> known;
    for (const SimulationSite& site : topology.sites) {
      known.push_back(site.zone);
      known.insert(known.end(), site.regions.begin(), site.regions.end());
    }
    const std::string closest = ClosestMatch(name, known);
    return absl::InvalidArgumentError(
        absl::StrCat("--origins: unknown origin \"", name, "\": neither a region nor a zone of ",
                     request.region_zones_csv,
                     closest.empty() ? "" : absl::StrCat("; did you mean \"", closest, "\"?")));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

int SimulateCommand(const SimulateRequest& request, std::ostream& out, std::ostream& err) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Load(request.trace_csv);
  if (!trace.ok()) {
    err << kPrefix << trace.status().message() << "\n";
    return kUsageExitCode;
  }
  absl::StatusOr<SiteTopology> topology = LoadTopology(request, *trace);
  if (!topology.ok()) {
    err << kPrefix << topology.status().message() << "\n";
    return kUsageExitCode;
  }
  if (!topology->skipped.empty()) {
    std::vector<std::string> named;
    for (const SkippedSite& site : topology->skipped) {
      named.push_back(
          absl::StrCat(site.zone, " (", absl::StrJoin(site.regions, ", "), "): ", site.why));
    }
    err << kPrefix << "warning: skipping " << topology->skipped.size()
        << (topology->skipped.size() == 1 ? " site" : " sites") << " without carbon data in "
        << request.trace_csv << ": " << absl::StrJoin(named, "; ") << "\n";
  }
  absl::StatusOr<std::vector<std::size_t>> origins = ResolveOrigins(request, *topology);
  if (!origins.ok()) {
    err << kPrefix << origins.status().message() << "\n";
    return kUsageExitCode;
  }
  SimulationOptions options = request.options;
  options.origins = *origins;
  absl::StatusOr<SimulationResult> result;
  {
    ProgressBar bar(err, SimulationSteps(*trace, options), request.progress_bar);
    options.progress = bar.counter();
    result = Simulate(*topology, *trace, options);
  }
  if (!result.ok()) {
    err << kPrefix << result.status().message() << "\n";
    return absl::IsInvalidArgument(result.status()) ? kUsageExitCode : 1;
  }
  if (request.format == "csv") {
    WriteSimulationCsv(*result, out);
  } else if (request.format == "json") {
    WriteSimulationJson(*topology, options, *result, out);
  } else {
    WriteSimulationTable(*result, out);
  }
  if (!request.plot.empty()) {
    if (absl::Status plotted = PlotSimulation(*result, request.plot); !plotted.ok()) {
      err << kPrefix << plotted.message() << "\n";
      return 1;
    }
    err << kPrefix << "plot written to " << request.plot << "\n";
  }
  return 0;
}

}  // namespace carbonroute::scheduler_lite
