#include "keda/keda_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::keda {
namespace {

std::string KeyOf(const PublishedConfigMap& configmap) {
  return absl::StrCat(configmap.namespace_name, "/", configmap.name, "/", configmap.key);
}

std::string PathOf(const PublishedConfigMap& configmap) {
  return absl::StrCat("/api/v1/namespaces/", configmap.namespace_name, "/configmaps/",
                      configmap.name);
}

std::string CollectionOf(const PublishedConfigMap& configmap) {
  return absl::StrCat("/api/v1/namespaces/", configmap.namespace_name, "/configmaps");
}

}  // namespace

KedaPublisher::KedaPublisher(KedaPublisherOptions options, const kube::KubeClient& client,
                             const carbon_aware::CarbonAwareData& data, Clock& clock,
                             KedaMetrics* metrics)
    : options_(std::move(options)),
      client_(client),
      data_(data),
      metrics_(metrics),
      lease_(options_.lease, client),
      loop_({.resync = options_.interval}, client, clock, *this, &lease_) {}

absl::Status KedaPublisher::Write(const PublishedConfigMap& configmap, const KedaForecast& forecast,
                                  absl::Time now) {
  absl::StatusOr<std::string> patched = client_.Patch(PathOf(configmap), kube::kMergePatch,
                                                      ConfigMapPatch(forecast, configmap.key, now));
  if (patched.ok()) return absl::OkStatus();
  const std::string object =
      ConfigMapObject(forecast, configmap.name, configmap.namespace_name, configmap.key, now);
  if (absl::IsNotFound(patched.status())) {
    return client_.Create(CollectionOf(configmap), object).status();
  }
  if (!absl::IsInvalidArgument(patched.status())) return patched.status();
  // 422: an immutable ConfigMap (Azure's exporter writes them so) refuses any change.
  spdlog::warn(
      "keda: ConfigMap {}/{} refused an update ({}); deleting it and creating it again, "
      "not immutable, so that later updates keep it in place",
      configmap.namespace_name, configmap.name, std::string(patched.status().message()));
  CARBONROUTE_RETURN_IF_ERROR(client_.Delete(PathOf(configmap)));
  return client_.Create(CollectionOf(configmap), object).status();
}

PublishCounts KedaPublisher::RunOnce() {
  loop_.RunOnce();
  return counts_;
}

void KedaPublisher::Reconcile(const kube::ControllerPass& pass) {
  counts_ = {};
  PublishCounts& counts = counts_;
  const absl::Time now = pass.now;
  const bool leading = pass.leading;
  if (leading != was_leading_) {
    spdlog::info("keda: {} the Lease {}/{}{}", leading ? "holding" : "not holding",
                 options_.lease.namespace_name, options_.lease.name,
                 leading                    ? "; writing the ConfigMaps"
                 : pass.lease_error.empty() ? ""
                                            : ": " + pass.lease_error);
    if (leading) written_.clear();  // another replica may have written since
    was_leading_ = leading;
  }
  if (metrics_ != nullptr) metrics_->SetLeader(leading);
  if (!leading) return;
  for (const PublishedConfigMap& configmap : options_.configmaps) {
    const std::string key = KeyOf(configmap);
    absl::StatusOr<std::string> grid_location = options_.grid_location(configmap.location);
    absl::StatusOr<KedaForecast> forecast =
        grid_location.ok()
            ? ReadKedaForecast(data_, *grid_location, configmap.location, now, options_.history)
            : absl::StatusOr<KedaForecast>(grid_location.status());
    absl::Status status = forecast.status();
    if (forecast.ok()) {
      const auto last = written_.find(key);
      if (last != written_.end() && last->second == *forecast) {
        ++counts.unchanged;
        if (metrics_ != nullptr) {
          metrics_->Current(configmap.namespace_name, configmap.name, /*written=*/false,
                            forecast->records.size(), now);
        }
        continue;
      }
      status = Write(configmap, *forecast, now);
    }
    if (status.ok()) {
      ++counts.written;
      if (!written_.contains(key)) {
        spdlog::info("keda: ConfigMap {}/{} written: {} records of {}", configmap.namespace_name,
                     configmap.name, forecast->records.size(), configmap.location);
      }
      if (metrics_ != nullptr) {
        metrics_->Current(configmap.namespace_name, configmap.name, /*written=*/true,
                          forecast->records.size(), now);
      }
      written_[key] = *std::move(forecast);
      last_error_.erase(key);
      continue;
    }
    ++counts.failed;
    if (metrics_ != nullptr) metrics_->Failed(configmap.namespace_name, configmap.name);
    const std::string error(status.message());
    if (last_error_[key] != error) {
      spdlog::warn("keda: ConfigMap {}/{} ({}): {}", configmap.namespace_name, configmap.name,
                   configmap.location, error);
      last_error_[key] = error;
    }
  }
}

}  // namespace carbonroute::keda
