#include "scheduler-lite/simulate_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/counted.h"
#include "base/data_files.h"
#include "base/duration_text.h"
#include "base/usage.h"
#include "cli/progress_bar.h"
#include "contract/intensity_trace.h"
#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"
#include "output/simulation_output.h"
#include "output/temporal_output.h"
#include "scheduler-lite/command_flags.h"
#include "simulator/both_shift.h"
#include "simulator/simulation_sites.h"
#include "simulator/temporal_simulation.h"
#include "simulator/zone_groups.h"

namespace carbonroute::scheduler_lite {

using simulator::BuildSiteTopology;
using simulator::ParsePolicy;
using simulator::Simulate;
using simulator::SimulatedPolicy;
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

// Site ids of the named origins; kInvalidArgument naming an unknown one. A
// region of another cloud (cloud_regions_csv: AWS, Azure, Oracle) is its grid
// zone's site, said in `notes`, as rank, window and the SDK API take it.
absl::StatusOr<std::vector<std::size_t>> ResolveOrigins(const SimulateRequest& request,
                                                        const SiteTopology& topology,
                                                        std::vector<std::string>& notes) {
  std::map<std::string, std::string, std::less<>> cloud_regions;
  if (!request.cloud_regions_csv.empty()) {
    absl::StatusOr<std::string> text = ReadFileToString(request.cloud_regions_csv, "region table");
    if (text.ok()) {
      auto parsed = ParseRegionLocationsCsv(*text, request.cloud_regions_csv);
      if (parsed.ok()) cloud_regions = *std::move(parsed);
    }
  }
  std::vector<std::size_t> ids;
  for (const std::string& name : request.origins) {
    std::optional<std::size_t> found = topology.SiteOf(name);
    if (!found) {
      if (auto zone = cloud_regions.find(name); zone != cloud_regions.end()) {
        found = topology.SiteOf(zone->second);
        if (found) {
          notes.push_back(absl::StrCat("--origins: \"", name, "\" taken as its grid zone ",
                                       zone->second, " (", request.cloud_regions_csv, ")"));
        }
      }
    }
    if (found) {
      if (std::find(ids.begin(), ids.end(), *found) == ids.end()) ids.push_back(*found);
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

// "1h,6h,7d": whole hours, each at least `min_hours` ("d" is 24 h).
std::vector<int> HoursListFlag(const std::string& text, const char* flag, int min_hours) {
  std::vector<int> hours;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    const std::string word(absl::StripAsciiWhitespace(item));
    const std::optional<absl::Duration> read = ParseDurationText(word);
    const absl::Duration d = read.value_or(absl::ZeroDuration());
    if (!read || d % absl::Hours(1) != absl::ZeroDuration() || d < absl::Hours(min_hours) ||
        d > absl::Hours(1000000)) {
      throw CLI::ValidationError(
          flag, absl::StrCat("expected whole hours", min_hours > 0 ? " of at least 1h" : "",
                             ", comma-separated, such as 24h,168h or 7d, got \"", word, "\""));
    }
    hours.push_back(static_cast<int>(absl::ToInt64Hours(d)));
  }
  return hours;
}

simulator::SimulatedForecast ForecastFlag(const std::string& text) {
  absl::StatusOr<simulator::SimulatedForecast> forecast = simulator::ParseSimulatedForecast(text);
  if (!forecast.ok())
    throw CLI::ValidationError("--forecast", std::string(forecast.status().message()));
  return *forecast;
}

// The flags that apply to some shifts only, and the shifts they apply to.
const std::vector<std::pair<const char*, std::vector<std::string>>> kShiftFlags = {
    {"--region-zones", {"space", "both", "rebalance"}},
    {"--rtt-matrix", {"space", "both", "rebalance"}},
    {"--max-rtt-ms", {"space", "both", "rebalance"}},
    {"--origins", {"space"}},
    {"--idle-capacity", {"space"}},
    {"--runtime", {"space"}},
    {"--carbon-weight", {"space"}},
    {"--latency-weight", {"space"}},
    {"--carbon-tolerance", {"space"}},
    {"--capacity-prices", {"space"}},
    {"--zone-groups", {"time", "both", "rebalance"}},
    {"--job-length", {"time", "both"}},
    {"--slack", {"time", "both"}},
    {"--interruptible", {"time", "both"}},
    {"--group", {"time", "both", "rebalance"}},
    {"--forecast-horizon", {"time", "both"}},
    {"--tolerances", {"rebalance"}},
    {"--restart-minutes", {"rebalance"}},
    {"--lifetime", {"rebalance"}},
    {"--min-stay", {"rebalance"}},
    {"--horizon", {"rebalance"}}};

constexpr char kSimulateModel[] = R"(Model:
  A site is a grid zone that hosts at least one region of --region-zones; regions
  sharing a zone are one site. The RTT between two sites is the --rtt-matrix value
  between their regions (the smallest, if several); a site to itself is 5 ms.
  Every site has a capacity of 100 units and its own constant load of
  100 * (1 - idle/100) units (rounded). Work may move only to sites within
  --max-rtt-ms of its origin site, never beyond a site's capacity, and is re-placed
  every --runtime. The figure of merit is the load-weighted mean carbon intensity
  of the origins' work over the trace (gCO2eq/kWh); savings are relative to local.
Policies:
  local        nothing moves.
  static       one plan from each site's mean over the whole trace: origins in
               ascending order of their mean move as much as fits to the cleanest
               sites within the limit (itself included), in order, and keep the rest.
  carbonroute  each period, each origin (dirtiest first) is placed by the extender's
               own scoring with the limit as a hard filter, seeing the current
               reading and the forecast mean (--forecast perfect: the trace itself;
               persistence: the same hours of the previous day; noisy:P: the trace
               with P % mean absolute error). Inside the limit latency decides only
               within --carbon-tolerance gCO2eq/kWh of the cleanest (serve's rule);
               sites the forecast says will fill carry the price of their capacity
               (--capacity-prices, the duals of the forecast's min-cost flow), and
               the origins with the fewest best sites choose first; full sites are
               not candidates.
  oracle       each period, the minimum-carbon assignment for the true means
               (min-cost flow, LEMON NetworkSimplex): the lower bound.
Sites whose zone has no column in --trace are skipped with a warning.
--shift time (what waiting would save; Sukprasert et al., EuroSys 2024):
  A job of --job-length hours arrives at every hour of the year in every zone of
  --trace; with --slack hours it may run in any job-length hours of the window
  [arrival, arrival + slack + length) if interruptible, or in job-length
  consecutive hours of it if not; the window ends with the trace (a slack of a
  year is the rest of the year). The figure of merit is the mean gCO2eq/kWh per
  job-hour, averaged over every job of a --group (Global: every zone; the
  continents of --zone-groups).
  now          runs at arrival.
  carbonroute  decides hour by hour with the current reading, a forecast of the next
               --forecast-horizon hours (--forecast perfect, persistence, noisy:P) and
               the past week: far from the deadline it takes only hours below all but
               a share min(1/2, (length + 24) / (slack + length)) of the past week's
               readings (and, in one block, the best start within the forecast); once
               the deadline is within the forecast it plans the rest on the forecast.
  oracle       the cleanest hours of the window in hindsight: the lower bound.
--shift both (waiting and moving): the jobs of --shift time, at every site of
  --region-zones, may also run in each of their hours at any site within
  --max-rtt-ms (default 100) of their origin. Jobs are marginal (each fits in a
  site's idle room and changes no intensity), so an hour a job runs costs the
  cleanest reachable site's reading: now runs at arrival at home; carbonroute and
  oracle wait on that reachable series (carbonroute with the forecast of it).
--shift rebalance (re-placing running services; docs/rebalance.md): at every site
  one service arrives each day (at hour day mod 24) and runs --lifetime at constant
  power. bind time: placed at arrival at the cleanest site within --max-rtt-ms
  (default 25,100) of its origin, and kept. rebalance: placed the same way, then
  every hour moved when the cleanest site within the limit has beaten its own by
  more than the tolerance for --min-stay, it has run --min-stay where it is, and
  the gap now over --horizon earns more than the restart (--restart-minutes of its
  own power, priced at the destination): rebalance --controller's rules. Per
  --group, limit, --tolerances and --restart-minutes: the mean intensity of local,
  bind time and rebalance (restarts included), the extra saving over bind time and
  the moves per workload-day.)";

class SimulateSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "simulate"; }
  const char* description() const override {
    return "what each policy would have saved over a year of real grid data";
  }
  void AddFlags(CLI::App& cmd) override {
    cmd.add_option("--shift", request_.shift,
                   "space: move work between sites; time: wait for cleaner hours; both: wait "
                   "and move; rebalance: re-place running services against placing them once")
        ->check(CLI::IsMember({"space", "time", "both", "rebalance"}))
        ->capture_default_str();
    cmd.add_option("--trace", request_.trace_csv,
                   "hourly carbon-intensity CSV datetime,<zone>... (default: "
                   "data/" +
                       std::string(kIntensityTraceFile) + ")")
        ->check(CLI::ExistingFile);
    cmd.add_option(
           "--region-zones", request_.region_zones_csv,
           std::string("region → grid zone CSV (default: data/") + kStudyRegionZonesFile + ")")
        ->check(CLI::ExistingFile);
    cmd.add_option(
           "--rtt-matrix", request_.rtt_matrix_csv,
           std::string("RTT matrix CSV sending_region,receiving_region,milliseconds (default: "
                       "data/") +
               kInterRegionRttFile + ")")
        ->check(CLI::ExistingFile);
    cmd.add_option("--zone-groups", request_.zone_groups_csv,
                   std::string("--shift time: zone → continent CSV (default: data/") +
                       kZoneGroupsFile + ")")
        ->check(CLI::ExistingFile);
    cmd.add_option("--job-length", job_lengths_,
                   "--shift time: job lengths, whole hours, comma-separated")
        ->capture_default_str();
    cmd.add_option("--slack", slacks_,
                   "--shift time: how long a job may wait, whole hours or days (7d), "
                   "comma-separated")
        ->capture_default_str();
    cmd.add_option("--interruptible", interruptible_,
                   "--shift time: whether a job may pause: yes, no or both")
        ->check(CLI::IsMember({"yes", "no", "both"}))
        ->capture_default_str();
    cmd.add_option("--group", groups_,
                   "--shift time: zone groups, comma-separated: Global, Americas, Europe, Asia, "
                   "Oceania")
        ->capture_default_str();
    cmd.add_option("--data-dir", data_dirs_,
                   "directory searched first for the default data files (repeatable)");
    cmd.add_option("--origins", origins_,
                   "where work originates: regions (any cloud's: a region of another cloud is "
                   "its grid zone's site) or zones, comma-separated (default: every site)");
    cmd.add_option("--max-rtt-ms", limits_,
                   "latency limits, ms, comma-separated (--shift both: default 100)")
        ->capture_default_str();
    cmd.add_option("--idle-capacity", idle_,
                   "idle capacity levels, percent in [0, 100), comma-separated")
        ->capture_default_str();
    cmd.add_option("--policies", policies_,
                   "local,static,carbonroute,oracle (any of them, comma-separated); with "
                   "--shift time: now,carbonroute,oracle")
        ->capture_default_str();
    cmd.add_option("--runtime", runtime_,
                   "work is re-placed every runtime (whole hours, e.g. 1h, 4h)")
        ->capture_default_str();
    cmd.add_option("--forecast", forecast_,
                   "what carbonroute knows of what comes: perfect, persistence or noisy:P "
                   "(P % mean absolute error)")
        ->capture_default_str();
    cmd.add_option("--forecast-horizon", forecast_horizon_,
                   "--shift time: how far ahead carbonroute's forecast reaches (whole hours)")
        ->capture_default_str();
    cmd.add_option("--format", request_.format, "table, csv or json")
        ->check(CLI::IsMember({"table", "csv", "json"}))
        ->capture_default_str();
    cmd.add_option("--plot", request_.plot,
                   "also draw mean intensity against the limit into FILE.svg or FILE.png "
                   "(needs gnuplot)");
    AddScoringFlags(cmd, request_.options.carbon_weight, request_.options.latency_weight,
                    request_.options.carbon_tolerance, "the carbonroute policy's (as serve's) ");
    cmd.add_option("--capacity-prices", capacity_prices_,
                   "whether the carbonroute policy prices the capacity its forecast says "
                   "will run out: yes or no")
        ->check(CLI::IsMember({"yes", "no"}))
        ->capture_default_str();
    cmd.add_option("--tolerances", tolerances_,
                   "--shift rebalance: carbon tolerances, gCO2eq/kWh, comma-separated")
        ->capture_default_str();
    cmd.add_option("--restart-minutes", restart_minutes_,
                   "--shift rebalance: a restart's energy in minutes of the service's own power, "
                   "comma-separated")
        ->capture_default_str();
    cmd.add_option("--lifetime", lifetime_, "--shift rebalance: how long each service runs")
        ->capture_default_str();
    cmd.add_option("--min-stay", min_stay_,
                   "--shift rebalance: the policy's minStay (rounded up to whole hours)")
        ->capture_default_str();
    cmd.add_option("--horizon", horizon_, "--shift rebalance: the policy's horizon")
        ->capture_default_str();
    cmd.add_option("--threads", request_.options.threads, "worker threads (0: one per core)")
        ->check(CLI::Range(0, 1024).description("0 to 1024"))
        ->capture_default_str();
    cmd.footer(kSimulateModel);
    command_ = &cmd;
  }
  void Validate() override {
    request_.progress_bar = isatty(STDERR_FILENO) == 1;
    const bool time = request_.shift != "space";
    for (const auto& [flag, shifts] : kShiftFlags) {
      if (command_->get_option(flag)->count() > 0 &&
          std::find(shifts.begin(), shifts.end(), request_.shift) == shifts.end()) {
        throw CLI::ValidationError(flag, "applies to --shift " + absl::StrJoin(shifts, " or ") +
                                             ", not --shift " + request_.shift);
      }
    }
    if (!request_.plot.empty() && !IsPlotPath(request_.plot)) {
      throw CLI::ValidationError("--plot", "\"" + request_.plot + "\" must end in .svg or .png");
    }
    if (request_.shift == "rebalance") {
      ValidateRebalance();
      return;
    }
    if (time) {
      ValidateTime();
      if (request_.shift == "both") {
        request_.both_max_rtt_ms = LatencyLimitsFlag(
            command_->get_option("--max-rtt-ms")->count() > 0 ? limits_ : "100", "--max-rtt-ms");
      }
      return;
    }
    SimulationOptions& o = request_.options;
    o.max_rtt_ms = LatencyLimitsFlag(limits_, "--max-rtt-ms");
    o.idle_percent.clear();
    for (double idle : NumberListFlag(idle_, "--idle-capacity", 0, 100,
                                      "whole percentages in [0, 100) such as 0,50,99")) {
      if (idle != std::floor(idle)) {
        throw CLI::ValidationError("--idle-capacity", "expected whole percentages, got " + idle_);
      }
      o.idle_percent.push_back(static_cast<int>(idle));
    }
    o.policies.clear();
    for (absl::string_view name : absl::StrSplit(policies_, ',')) {
      std::optional<SimulatedPolicy> policy = ParsePolicy(name);
      if (!policy) {
        throw CLI::ValidationError("--policies",
                                   "unknown policy \"" + std::string(name) +
                                       "\" (policies: local, static, carbonroute, oracle)");
      }
      if (std::find(o.policies.begin(), o.policies.end(), *policy) == o.policies.end()) {
        o.policies.push_back(*policy);
      }
    }
    const absl::Duration runtime = DurationFlag(runtime_, "--runtime");
    if (runtime % absl::Hours(1) != absl::ZeroDuration()) {
      throw CLI::ValidationError("--runtime",
                                 "expected whole hours (the trace is hourly), "
                                 "got \"" +
                                     runtime_ + "\"");
    }
    o.runtime_hours = static_cast<int>(absl::ToInt64Hours(runtime));
    o.forecast = ForecastFlag(forecast_);
    o.capacity_prices = capacity_prices_ == "yes";
    request_.origins = absl::StrSplit(origins_, ',', absl::SkipEmpty());
  }
  void ValidateRebalance() {
    simulator::ReplacementOptions& r = request_.replacement;
    r.max_rtt_ms = LatencyLimitsFlag(
        command_->get_option("--max-rtt-ms")->count() > 0 ? limits_ : "25,100", "--max-rtt-ms");
    r.tolerances = NumberListFlag(tolerances_, "--tolerances", 0, 1e6,
                                  "gCO2eq/kWh ≥ 0, comma-separated, such as 25,50,100");
    r.restart_minutes = NumberListFlag(restart_minutes_, "--restart-minutes", 0, 1e6,
                                       "minutes ≥ 0, comma-separated, such as 1,15,60");
    const std::vector<int> lifetime = HoursListFlag(lifetime_, "--lifetime", 1);
    if (lifetime.size() != 1) {
      throw CLI::ValidationError("--lifetime", "expected one duration, got \"" + lifetime_ + "\"");
    }
    r.lifetime_hours = lifetime[0];
    r.min_stay = DurationFlag(min_stay_, "--min-stay");
    r.horizon = DurationFlag(horizon_, "--horizon");
    if (r.horizon <= absl::ZeroDuration()) {
      throw CLI::ValidationError("--horizon", "expected a duration > 0, got \"" + horizon_ + "\"");
    }
    r.groups = GroupsFlag(command_->get_option("--group")->count() > 0 ? groups_ : "Global,Europe");
  }
  std::vector<std::string> GroupsFlag(const std::string& text) {
    std::vector<std::string> groups;
    std::vector<std::string> known = {simulator::kGlobalGroup};
    known.insert(known.end(), std::begin(simulator::kZoneGroups), std::end(simulator::kZoneGroups));
    for (absl::string_view name : absl::StrSplit(text, ',')) {
      const std::string group(absl::StripAsciiWhitespace(name));
      if (std::find(known.begin(), known.end(), group) == known.end()) {
        const std::string closest = ClosestMatch(group, known);
        throw CLI::ValidationError(
            "--group", "unknown group \"" + group + "\" (groups: " + absl::StrJoin(known, ", ") +
                           ")" + (closest.empty() ? "" : "; did you mean \"" + closest + "\"?"));
      }
      if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    }
    return groups;
  }
  void ValidateTime() {
    simulator::TemporalOptions& t = request_.temporal;
    t.threads = request_.options.threads;
    t.job_lengths_hours = HoursListFlag(job_lengths_, "--job-length", 1);
    t.slacks_hours = HoursListFlag(slacks_, "--slack", 0);
    t.interruptible.clear();
    if (interruptible_ != "yes") t.interruptible.push_back(false);
    if (interruptible_ != "no") t.interruptible.push_back(true);
    t.forecast = ForecastFlag(forecast_);
    const std::vector<int> horizon = HoursListFlag(forecast_horizon_, "--forecast-horizon", 1);
    if (horizon.size() != 1) {
      throw CLI::ValidationError("--forecast-horizon",
                                 "expected one duration, got \"" + forecast_horizon_ + "\"");
    }
    t.forecast_horizon_hours = horizon[0];
    t.groups = GroupsFlag(groups_);
    if (command_->get_option("--policies")->count() > 0) {
      request_.temporal_policies.clear();
      for (absl::string_view name : absl::StrSplit(policies_, ',')) {
        if (name != "now" && name != "carbonroute" && name != "oracle") {
          throw CLI::ValidationError(
              "--policies", "unknown policy \"" + std::string(name) +
                                "\" with --shift time (policies: now, carbonroute, oracle)");
        }
        request_.temporal_policies.emplace_back(name);
      }
      t.carbonroute =
          std::find(request_.temporal_policies.begin(), request_.temporal_policies.end(),
                    "carbonroute") != request_.temporal_policies.end();
    }
  }
  int Run(ProgramContext& c) override {
    // The data files each shift reads, found in --data-dir or the shipped data.
    const bool space = request_.shift != "time", time = request_.shift != "space";
    std::vector<std::pair<std::string*, const char*>> files = {
        {&request_.trace_csv, kIntensityTraceFile}};
    std::string flags = "--trace";
    if (time) {
      files.emplace_back(&request_.zone_groups_csv, kZoneGroupsFile);
      flags += "/--zone-groups";
    }
    if (space) {
      files.emplace_back(&request_.region_zones_csv, kStudyRegionZonesFile);
      files.emplace_back(&request_.cloud_regions_csv, kRegionZonesFile);
      files.emplace_back(&request_.rtt_matrix_csv, kInterRegionRttFile);
      flags += "/--region-zones/--rtt-matrix";
    }
    for (const auto& [path, file] : files) {
      if (const absl::Status found = FillDefaultDataFiles(data_dirs_, {{path, file}});
          !found.ok()) {
        c.err << "scheduler-lite: " << found.message() << " (give " << flags << " or --data-dir)\n";
        return kUsageExitCode;
      }
    }
    return SimulateCommand(request_, c.out, c.err);
  }

 private:
  SimulateRequest request_;
  std::vector<std::string> data_dirs_;
  std::string limits_ = "5,50,100,150,200,250,300";
  std::string idle_ = "0,50,99";
  std::string policies_ = "local,static,carbonroute,oracle";
  std::string origins_;
  std::string runtime_ = "1h";
  std::string forecast_ = "perfect";
  std::string forecast_horizon_ = "24h";
  std::string capacity_prices_ = "yes";
  std::string job_lengths_ = "1h,6h,12h,24h,48h,96h,168h";
  std::string slacks_ = "24h,168h,480h,720h,8760h";
  std::string interruptible_ = "both";
  std::string groups_ = "Global,Americas,Europe,Asia,Oceania";
  std::string tolerances_ = "25,50,100";
  std::string restart_minutes_ = "1,15,60";
  std::string lifetime_ = "7d";
  std::string min_stay_ = "30m";
  std::string horizon_ = "4h";
  CLI::App* command_ = nullptr;
};

// 0 after saying where the plot went; 1 after saying why it could not be drawn.
int PlotOutcome(const absl::Status& plotted, const std::string& path, std::ostream& err) {
  if (!plotted.ok()) {
    err << kPrefix << plotted.message() << "\n";
    return 1;
  }
  err << kPrefix << "plot written to " << path << "\n";
  return 0;
}

// --zone-groups, read and parsed; nullopt after saying on `err` why it cannot be (a usage error).
std::optional<std::map<std::string, std::set<std::string>>> LoadZoneGroups(
    const SimulateRequest& request, std::ostream& err) {
  absl::StatusOr<std::string> text = ReadFileToString(request.zone_groups_csv, "zone groups file");
  if (!text.ok()) {
    err << kPrefix << text.status().message() << "\n";
    return std::nullopt;
  }
  absl::StatusOr<std::map<std::string, std::set<std::string>>> groups =
      simulator::ParseZoneGroups(*text, request.zone_groups_csv);
  if (!groups.ok()) {
    err << kPrefix << groups.status().message() << "\n";
    return std::nullopt;
  }
  return *std::move(groups);
}

// --shift time, or --shift both over `topology`'s sites.
int SimulateTime(const SimulateRequest& request, const IntensityTrace& trace,
                 const SiteTopology* topology, std::ostream& out, std::ostream& err) {
  const std::optional<std::map<std::string, std::set<std::string>>> groups =
      LoadZoneGroups(request, err);
  if (!groups) return kUsageExitCode;
  absl::StatusOr<std::vector<simulator::TemporalRow>> rows =
      topology == nullptr ? simulator::SimulateTemporal(trace, *groups, request.temporal)
                          : simulator::SimulateBoth(*topology, trace, *groups, request.temporal,
                                                    request.both_max_rtt_ms);
  if (!rows.ok()) {
    err << kPrefix << rows.status().message() << "\n";
    return absl::IsInvalidArgument(rows.status()) ? kUsageExitCode : 1;
  }
  std::erase_if(*rows, [&](const simulator::TemporalRow& row) {
    const absl::string_view name = TemporalPolicyName(row.policy);
    return std::find(request.temporal_policies.begin(), request.temporal_policies.end(), name) ==
           request.temporal_policies.end();
  });
  if (request.format == "csv") {
    WriteTemporalCsv(*rows, out);
  } else if (request.format == "json") {
    WriteTemporalJson(*rows, topology == nullptr ? trace.zones().size() : topology->size(),
                      request.temporal, out);
  } else {
    WriteTemporalTable(*rows, out);
  }
  if (request.plot.empty()) return 0;
  return PlotOutcome(PlotTemporal(*rows, request.plot), request.plot, err);
}

// --shift rebalance over `topology`'s sites.
int SimulateRebalance(const SimulateRequest& request, const IntensityTrace& trace,
                      const SiteTopology& topology, std::ostream& out, std::ostream& err) {
  const std::optional<std::map<std::string, std::set<std::string>>> groups =
      LoadZoneGroups(request, err);
  if (!groups) return kUsageExitCode;
  absl::StatusOr<std::vector<simulator::ReplacementRow>> rows =
      simulator::SimulateReplacement(topology, trace, *groups, request.replacement);
  if (!rows.ok()) {
    err << kPrefix << rows.status().message() << "\n";
    return absl::IsInvalidArgument(rows.status()) ? kUsageExitCode : 1;
  }
  if (request.format == "csv") {
    WriteReplacementCsv(*rows, out);
  } else if (request.format == "json") {
    WriteReplacementJson(*rows, out);
  } else {
    WriteReplacementTable(*rows, out);
  }
  if (!request.plot.empty()) {
    err << kPrefix << "note: --plot draws --shift space, time and both; not written\n";
  }
  return 0;
}

}  // namespace

int SimulateCommand(const SimulateRequest& request, std::ostream& out, std::ostream& err) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Load(request.trace_csv);
  if (!trace.ok()) {
    err << kPrefix << trace.status().message() << "\n";
    return kUsageExitCode;
  }
  if (request.shift == "time") return SimulateTime(request, *trace, nullptr, out, err);
  absl::StatusOr<SiteTopology> topology = LoadTopology(request, *trace);
  if (!topology.ok()) {
    err << kPrefix << topology.status().message() << "\n";
    return kUsageExitCode;
  }
  if (!topology->skipped.empty()) {
    std::vector<std::string> named;
    for (const SkippedSite& site : topology->skipped) {
      // Regions the table maps to no zone were printed as ":  (cn-north-1, ...)".
      named.push_back(
          site.zone.empty()
              ? absl::StrCat("regions without a grid zone in ", request.region_zones_csv, " (",
                             absl::StrJoin(site.regions, ", "), ")")
              : absl::StrCat(site.zone, " (", absl::StrJoin(site.regions, ", "), "): ", site.why));
    }
    // A note, not a warning: the simulation goes on over the other sites (the shipped region
    // table names three zones under codes the 2022 trace does not use).
    err << kPrefix << "note: " << Counted(topology->skipped.size(), "site")
        << " without carbon data in " << request.trace_csv
        << (topology->skipped.size() == 1 ? " is" : " are")
        << " left out: " << absl::StrJoin(named, "; ") << "\n";
  }
  if (request.shift == "both") return SimulateTime(request, *trace, &*topology, out, err);
  if (request.shift == "rebalance") return SimulateRebalance(request, *trace, *topology, out, err);
  std::vector<std::string> notes;
  absl::StatusOr<std::vector<std::size_t>> origins = ResolveOrigins(request, *topology, notes);
  for (const std::string& note : notes) err << kPrefix << "note: " << note << "\n";
  if (!origins.ok()) {
    err << kPrefix << origins.status().message() << "\n";
    return kUsageExitCode;
  }
  SimulationOptions options = request.options;
  options.origins = *origins;
  absl::StatusOr<SimulationResult> result;
  {
    cli::ProgressBar bar(err, SimulationSteps(*trace, options), request.progress_bar);
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
  if (request.plot.empty()) return 0;
  return PlotOutcome(PlotSimulation(*result, request.plot), request.plot, err);
}

std::unique_ptr<Subcommand> NewSimulateSubcommand() {
  return std::make_unique<SimulateSubcommand>();
}

}  // namespace carbonroute::scheduler_lite
