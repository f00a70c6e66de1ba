#include "collector/reloader.h"

#include <spdlog/spdlog.h>

#include "config/load_collector_config.h"

namespace carbonroute::collector {

void NodeOverrides::ApplyTo(CollectorConfig& config) const {
  if (!name.empty()) config.node.name = name;
  if (!region.empty()) config.node.region = region;
  if (!location.empty()) config.node.location = location;
}

void Reloader::Attach(Target target) {
  absl::MutexLock lock(&mutex_);
  target_ = std::move(target);
}

absl::Status Reloader::Reload() {
  absl::MutexLock lock(&mutex_);  // held throughout, so Attach(nullptr) waits for a reload
  if (target_ == nullptr) return absl::FailedPreconditionError("nothing to reload yet");
  spdlog::info("received SIGHUP, reloading {}", path_);
  absl::StatusOr<CollectorConfig> config = LoadCollectorConfig(path_);
  if (!config.ok()) {
    spdlog::error("reload: {}; keeping the running configuration",
                  std::string(config.status().message()));
    return config.status();
  }
  overrides_.ApplyTo(*config);
  absl::Status applied = target_(*config);
  if (!applied.ok()) {
    spdlog::error("reload: {}; keeping the running peers", std::string(applied.message()));
  }
  return applied;
}

}  // namespace carbonroute::collector
