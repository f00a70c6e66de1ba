#include "model_sources/measured_energy.h"

#include <utility>
#include <vector>

#include "base/status_macros.h"

namespace carbonroute::model_sources {

absl::StatusOr<ledger::MeteredPods> QueryMeteredPods(net::HttpClient& http, const std::string& url,
                                                     const std::string& promql,
                                                     absl::Duration timeout, const SourceAuth& auth,
                                                     absl::Time at) {
  std::vector<Sample> samples;
  CARBONROUTE_RETURN_IF_ERROR(QueryInstant(http, url, promql, timeout, auth, samples, at));
  return ledger::CombineMeteredSamples(samples);
}

ledger::PodsMeter PrometheusPodsMeter(net::HttpClient& http, std::string url, SourceAuth auth) {
  return [&http, url = std::move(url), auth = std::move(auth)](
             const std::string& namespace_name, const std::string& pods, absl::Time from,
             absl::Time to) -> absl::StatusOr<std::vector<ledger::PodEnergy>> {
    const absl::Time at = to + ledger::kMeteredRunLag;
    CARBONROUTE_ASSIGN_OR_RETURN(
        const ledger::MeteredPods metered,
        QueryMeteredPods(http, url, ledger::MeteredRunQuery(namespace_name, pods, at - from),
                         absl::Seconds(10), auth, at));
    return ledger::TotalBySource(metered);
  };
}

}  // namespace carbonroute::model_sources
