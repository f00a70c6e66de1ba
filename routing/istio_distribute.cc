#include "routing/istio_distribute.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace carbonroute::routing {
namespace {

// A locality's parts: region, zone, subzone, as many as it has (1 to 3); "*"
// for a wildcard part.
absl::Status SplitLocality(const std::string& locality, const std::string& where,
                           std::vector<std::string>& parts) {
  const auto stars = std::count(locality.begin(), locality.end(), '*');
  if (stars > 1 || (stars == 1 && !absl::EndsWith(locality, "*"))) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": locality \"", locality,
                     "\": wildcard '*' number can not exceed 1 and must be in the end"));
  }
  parts = absl::StrSplit(locality, absl::MaxSplits('/', 2));
  for (const std::string& part : parts) {
    if (part.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": locality \"", locality, "\" must not contain empty region/zone/subzone info"));
    }
  }
  return absl::OkStatus();
}

// Whether locality `a` covers `b` or `b` covers `a`: a part "*" or a shorter
// locality stands for everything below it.
bool Overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] == "*" || b[i] == "*") return true;
    if (a[i] != b[i]) return false;
  }
  return true;  // one is a prefix of the other (or they are equal)
}

}  // namespace

absl::Status CheckLocalities(const std::vector<std::string>& localities, const std::string& where) {
  std::vector<std::vector<std::string>> seen;
  for (const std::string& locality : localities) {
    std::vector<std::string> parts;
    if (absl::Status status = SplitLocality(locality, where, parts); !status.ok()) return status;
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (Overlap(seen[i], parts)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": locality \"", locality, "\" overlaps \"", localities[i], "\""));
      }
    }
    seen.push_back(std::move(parts));
  }
  return absl::OkStatus();
}

absl::Status CheckLocalityLbSetting(const LocalityLbSetting& setting) {
  if (setting.distribute.empty()) return absl::OkStatus();
  if (setting.failover_set) {
    return absl::InvalidArgumentError("can not simultaneously specify 'distribute' and 'failover'");
  }
  if (setting.failover_priority_set) {
    return absl::InvalidArgumentError(
        "can not simultaneously specify 'distribute' and 'failoverPriority'");
  }
  std::vector<std::string> from;
  for (std::size_t i = 0; i < setting.distribute.size(); ++i) {
    const DistributeRow& row = setting.distribute[i];
    const std::string where = absl::StrCat("distribute[", i, "]");
    from.push_back(row.from);
    int64_t total = 0;
    std::vector<std::string> to;
    for (const auto& [locality, weight] : row.to) {
      if (weight < 1 || weight > 100) {
        return absl::InvalidArgumentError(absl::StrCat(where, ".to[\"", locality, "\"]: weight ",
                                                       weight, ": must be in range [1, 100]"));
      }
      total += weight;
      to.push_back(locality);
    }
    if (total != 100) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": total locality weight ", total, " != 100"));
    }
    if (absl::Status status = CheckLocalities(to, where + ".to"); !status.ok()) return status;
  }
  return CheckLocalities(from, "distribute[].from");
}

}  // namespace carbonroute::routing
