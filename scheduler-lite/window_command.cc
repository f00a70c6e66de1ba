#include "scheduler-lite/window_command.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/duration_text.h"
#include "base/utc_time.h"
#include "model_sources/forecast_client.h"
#include "placement/best_window.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

using model_sources::FetchForecast;
using placement::BestWindow;
using placement::FindBestWindow;

namespace {

absl::StatusOr<absl::Time> ParseDeadline(const std::string& text, absl::Time now) {
  absl::string_view rest = text;
  std::optional<absl::Duration> relative;
  if (absl::ConsumePrefix(&rest, "+") && (relative = ParseDurationText(rest))) {
    if (*relative <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--deadline \"", text, "\" must be in the future, e.g. +12h"));
    }
    return now + *relative;
  }
  absl::Time when;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &when, &error)) return when;
  return absl::InvalidArgumentError(absl::StrCat(
      "--deadline \"", text, "\" is neither RFC 3339 (2026-11-23T06:00:00Z) nor relative (+12h)"));
}

// "now", or "in 2h30m" (whole seconds).
std::string InText(absl::Duration d) {
  d = absl::Trunc(d, absl::Seconds(1));
  return d <= absl::ZeroDuration() ? "now" : absl::StrCat("in ", absl::FormatDuration(d));
}

class WindowSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "window"; }
  const char* description() const override {
    return "best start time for a job from a location's forecast";
  }
  void AddFlags(CLI::App& cmd) override {
    cmd.add_option("--collector", request_.collector,
                   "collector base URL (its /metrics URL is taken as the collector too)")
        ->capture_default_str();
    cmd.add_option("--location", request_.location,
                   "grid location in any case, or a cloud region of one, e.g. DE, europe-west3")
        ->required();
    cmd.add_option("--duration", duration_, "job duration, e.g. 2h")->required();
    cmd.add_option("--deadline", request_.deadline, "latest end: RFC 3339 or relative (+12h)")
        ->required();
    cmd.add_option("--format", request_.format, "table or json")
        ->check(CLI::IsMember({"table", "json"}));
    client_.AddTo(cmd);
  }
  void Validate() override {
    request_.duration = DurationFlag(duration_, "--duration");
    request_.auth = client_.auth();
  }
  int Run(ProgramContext& c) override {
    return WindowCommand(request_, c.http, c.clock, c.out, c.err);
  }

 private:
  WindowRequest request_;
  std::string duration_;
  ClientFlags client_;
};

}  // namespace

int WindowCommand(const WindowRequest& request, net::HttpClient& http, Clock& clock,
                  std::ostream& out, std::ostream& err) {
  const absl::Time now = clock.Now();
  absl::StatusOr<absl::Time> deadline = ParseDeadline(request.deadline, now);
  if (!deadline.ok()) {
    err << "scheduler-lite: " << deadline.status().message() << "\n";
    return 2;
  }
  if (*deadline < now + request.duration) {  // before asking the collector anything
    err << "scheduler-lite: --deadline " << UtcSeconds(*deadline) << " leaves no room for a "
        << absl::FormatDuration(request.duration) << " run from now (" << UtcSeconds(now) << ")\n";
    return 2;
  }
  // The collector's /metrics URL (what rank --metrics takes) names the collector too.
  absl::string_view collector = request.collector;
  if (absl::ConsumeSuffix(&collector, "/metrics") || absl::ConsumeSuffix(&collector, "/metrics/")) {
    err << "scheduler-lite: note: --collector takes the collector's base URL; asking " << collector
        << "\n";
  }
  absl::StatusOr<std::vector<ForecastPoint>> points =
      FetchForecast(collector, request.location, http, request.auth);
  if (!points.ok()) {
    err << "scheduler-lite: " << points.status().message() << "\n";
    // A location the collector does not poll is the user's mistake (2); an
    // unreachable collector is not (1).
    return points.status().code() == absl::StatusCode::kNotFound ? 2 : 1;
  }
  absl::StatusOr<BestWindow> best = FindBestWindow(*points, now, request.duration, *deadline);
  if (!best.ok()) {
    err << "scheduler-lite: " << best.status().message() << "\n";
    return best.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 3;
  }
  // Where the forecast ends, when that is before the deadline: the window was chosen within it.
  std::optional<absl::Time> forecast_end;
  if (!points->empty() && points->back().valid_to < *deadline)
    forecast_end = points->back().valid_to;
  if (request.format == "json") {
    auto rounded = [](std::optional<double> x, double scale) {
      return x ? nlohmann::ordered_json(std::round(*x * scale) / scale) : nlohmann::ordered_json();
    };
    nlohmann::ordered_json answer = {
        {"location", request.location},
        {"start", UtcSeconds(best->start)},
        {"end", UtcSeconds(best->start + request.duration)},
        {"mean_grams_per_kwh", rounded(best->mean_grams_per_kwh, 1e3)},
        {"mean_if_started_now", rounded(best->mean_if_started_now, 1e3)},
        {"saving_fraction", rounded(best->saving_fraction, 1e4)},
        {"forecast_end", forecast_end ? nlohmann::ordered_json(UtcSeconds(*forecast_end))
                                      : nlohmann::ordered_json()}};
    out << answer.dump() << "\n";
    return 0;
  }
  out << absl::StrFormat("best start for %s in %s before %s: %s (%s)\n",
                         absl::FormatDuration(request.duration), request.location,
                         UtcSeconds(*deadline), UtcSeconds(best->start), InText(best->start - now));
  out << absl::StrFormat("  expected mean intensity: %.2f gCO2eq/kWh\n", best->mean_grams_per_kwh);
  if (best->mean_if_started_now) {
    out << absl::StrFormat("  starting now instead:    %.2f gCO2eq/kWh\n",
                           *best->mean_if_started_now);
  }
  if (best->saving_fraction)
    out << absl::StrFormat("  saving: %.1f %%\n", *best->saving_fraction * 100);
  if (forecast_end) {
    out << absl::StrFormat(
        "  the forecast ends %s (%s), before the deadline: the window was "
        "chosen within it\n",
        UtcSeconds(*forecast_end), InText(*forecast_end - now));
  }
  return 0;
}

std::unique_ptr<Subcommand> NewWindowSubcommand() { return std::make_unique<WindowSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
