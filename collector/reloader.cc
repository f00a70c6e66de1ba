#include "collector/reloader.h"

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "config/load_collector_config.h"

namespace carbonroute::collector {

void NodeOverrides::ApplyTo(CollectorConfig& config) const {
  if (!name.empty()) config.node.name = name;
  if (!region.empty()) config.node.region = region;
  if (!location.empty()) config.node.location = location;
}

Reloader::Reloader(std::string path, NodeOverrides overrides)
    : path_(std::move(path)),
      overrides_(std::move(overrides)),
      started_with_(ReadFileToString(path_, "configuration").value_or("")) {}

void Reloader::Attach(Target target) {
  absl::MutexLock lock(&mutex_);
  target_ = std::move(target);
}

absl::Status Reloader::Reload() {
  absl::MutexLock lock(&mutex_);  // held throughout, so Attach(nullptr) waits for a reload
  if (target_ == nullptr) return absl::FailedPreconditionError("nothing to reload yet");
  spdlog::info("received SIGHUP, reloading {}", path_);
  absl::StatusOr<CollectorConfig> config = LoadCollectorConfig(path_, overrides_.name);
  if (!config.ok()) {
    spdlog::error("reload: {}; keeping the running configuration",
                  std::string(config.status().message()));
    return config.status();
  }
  overrides_.ApplyTo(*config);
  const std::vector<std::string> changed = ChangedSections(
      started_with_, ReadFileToString(path_, "configuration").value_or(""), {"rtt"});
  if (!changed.empty()) {
    spdlog::warn(
        "reload: {} changed in {}, but only rtt is reloaded: restart the collector to apply "
        "{} (systemctl restart carbonroute-collector, or kubectl rollout restart)",
        absl::StrJoin(changed, ", "), path_, changed.size() == 1 ? "it" : "them");
  }
  absl::Status applied = target_(*config);
  if (!applied.ok()) {
    spdlog::error("reload: {}; keeping the running peers", std::string(applied.message()));
  }
  return applied;
}

}  // namespace carbonroute::collector
