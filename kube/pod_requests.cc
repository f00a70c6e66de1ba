#include "kube/pod_requests.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::kube {
namespace {

// The suffixes of a quantity and their multipliers (binary first: "Mi" before "m").
constexpr std::pair<absl::string_view, double> kSuffixes[] = {
    {"Ki", 1024.0},
    {"Mi", 1024.0 * 1024},
    {"Gi", 1024.0 * 1024 * 1024},
    {"Ti", 1024.0 * 1024 * 1024 * 1024},
    {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024},
    {"Ei", 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024},
    {"n", 1e-9},
    {"u", 1e-6},
    {"m", 1e-3},
    {"k", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"E", 1e18},
};

// The quantity at `field` (a string, or a number as some clients write it); 0 when missing.
absl::StatusOr<double> ReadQuantity(const JsonField& field) {
  if (field.missing()) return 0.0;
  if (absl::StatusOr<std::optional<int64_t>> number = field.OptionalInt(); number.ok()) {
    return static_cast<double>(number->value_or(0));
  }
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string text, field.OptionalString());
  absl::StatusOr<double> value = ParseQuantity(text);
  if (!value.ok()) return field.Error(value.status().message());
  return value;
}

}  // namespace

absl::StatusOr<double> ParseQuantity(absl::string_view text) {
  auto invalid = [text] {
    return absl::InvalidArgumentError(absl::StrCat("not a quantity: \"", text, "\""));
  };
  if (text.empty()) return invalid();
  double multiplier = 1;
  absl::string_view number = text;
  for (const auto& [suffix, factor] : kSuffixes) {
    if (number.size() > suffix.size() && absl::EndsWith(number, suffix)) {
      number.remove_suffix(suffix.size());
      multiplier = factor;
      break;
    }
  }
  // A decimal number, optionally signed, with an optional exponent (1e3, 5E-3).
  const std::string digits(number);
  if (digits.find_first_not_of("+-.0123456789eE") != std::string::npos) return invalid();
  if (multiplier != 1 && digits.find_first_of("eE") != std::string::npos) return invalid();
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(value)) return invalid();
  return value * multiplier;
}

absl::StatusOr<PodRequests> ReadPodRequests(const JsonField& pod_spec) {
  PodRequests requests;
  CARBONROUTE_RETURN_IF_ERROR(pod_spec.ExpectObjectOrMissing());
  CARBONROUTE_RETURN_IF_ERROR(pod_spec["containers"].ForEachElement(
      [&requests](const JsonField& container) -> absl::Status {
        const JsonField resources = container["resources"];
        // A resource limited but not requested is requested at its limit.
        auto read = [&resources](absl::string_view name) -> absl::StatusOr<double> {
          const JsonField requested = resources["requests"][name];
          return ReadQuantity(requested.missing() ? resources["limits"][name] : requested);
        };
        CARBONROUTE_ASSIGN_OR_RETURN(const double cpu, read("cpu"));
        CARBONROUTE_ASSIGN_OR_RETURN(const double memory, read("memory"));
        CARBONROUTE_ASSIGN_OR_RETURN(const double nvidia, read("nvidia.com/gpu"));
        CARBONROUTE_ASSIGN_OR_RETURN(const double amd, read("amd.com/gpu"));
        requests.cpu_cores += cpu;
        requests.memory_bytes += memory;
        requests.gpus += nvidia + amd;
        return absl::OkStatus();
      }));
  return requests;
}

absl::StatusOr<WorkloadRequests> ReadWorkloadRequests(const JsonField& object) {
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string kind, object["kind"].OptionalString());
  WorkloadRequests workload;
  if (kind == "Pod") {
    CARBONROUTE_ASSIGN_OR_RETURN(workload.per_replica, ReadPodRequests(object["spec"]));
    return workload;
  }
  absl::string_view count;
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet") {
    count = "replicas";
  } else if (kind == "Job") {
    count = "parallelism";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("kind \"", kind,
                     "\": only a Deployment, StatefulSet, ReplicaSet, Job or Pod has requests "
                     "carbonroute reads"));
  }
  CARBONROUTE_ASSIGN_OR_RETURN(const std::optional<int64_t> replicas,
                               object["spec"][count].OptionalInt());
  workload.replicas = replicas.value_or(1);
  CARBONROUTE_ASSIGN_OR_RETURN(workload.per_replica,
                               ReadPodRequests(object["spec"]["template"]["spec"]));
  return workload;
}

}  // namespace carbonroute::kube
