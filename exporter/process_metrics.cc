#include "exporter/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/build_info.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"
#include "prometheus/gauge.h"

namespace carbonroute::exporter {
namespace {

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::MetricFamily family{name, help, type, {}};
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(metric);
  return family;
}

// The fields of /proc/self/stat after the command name (which may hold spaces
// and parentheses): index 0 is field 3, "state".
std::vector<std::string> StatFields() {
  std::ifstream file("/proc/self/stat");
  std::string line;
  std::getline(file, line);
  const std::size_t end_of_name = line.rfind(')');
  std::vector<std::string> fields;
  if (end_of_name == std::string::npos) return fields;
  std::istringstream rest(line.substr(end_of_name + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// The system's boot time (Unix seconds), from /proc/stat's "btime"; 0 if unknown.
double BootTime() {
  std::ifstream file("/proc/stat");
  for (std::string key; file >> key;) {
    if (key == "btime") {
      double seconds = 0;
      file >> seconds;
      return seconds;
    }
    file.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> families;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const std::vector<std::string> stat = StatFields();
  // proc(5) field n is stat[n - 3].
  if (stat.size() > 21 && ticks > 0) {
    families.push_back(Family(
        "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
        prometheus::MetricType::Counter, (std::stod(stat[11]) + std::stod(stat[12])) / ticks));
    static const double boot = BootTime();  // the system's: read once
    if (boot > 0) {
      families.push_back(Family("process_start_time_seconds",
                                "Start time of the process since unix epoch in seconds.",
                                prometheus::MetricType::Gauge, boot + std::stod(stat[19]) / ticks));
    }
    families.push_back(Family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                              prometheus::MetricType::Gauge, std::stod(stat[20])));
    families.push_back(Family("process_resident_memory_bytes", "Resident memory size in bytes.",
                              prometheus::MetricType::Gauge, std::stod(stat[21]) * page));
  }
  std::error_code error;
  std::size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++fds;
  }
  if (!error) {
    families.push_back(Family("process_open_fds", "Number of open file descriptors.",
                              prometheus::MetricType::Gauge, static_cast<double>(fds)));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    families.push_back(Family("process_max_fds", "Maximum number of open file descriptors.",
                              prometheus::MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  return families;
}

void AddBuildInfo(prometheus::Registry& registry) {
  const BuildInfo& build = GetBuildInfo();
  prometheus::BuildGauge()
      .Name(metric_names::kBuildInfo)
      .Help("What this binary was built from (=1).")
      .Register(registry)
      .Add({{metric_labels::kVersion, build.version},
            {metric_labels::kRevision, build.revision},
            {metric_labels::kBranch, build.branch},
            {metric_labels::kCompiler, build.compiler}})
      .Set(1);
}

}  // namespace carbonroute::exporter
