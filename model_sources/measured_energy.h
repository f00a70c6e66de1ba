// File: model_sources/measured_energy.h
//
// Measured energy, read from Prometheus: what Kepler and DCGM measured of
// Pods, through the emissions rules' records (ledger/metered_energy.h says
// which records and how a window is combined). Used by the savings ledgers of
// `serve` (each refresh's window: MeteredEnergyQuery), hold and route
// --controller (one run's window: MeteredRunQuery through a PodsMeter).
//
// Errors: model_sources::QueryInstant's (Prometheus unreachable, a refused
// query, an answer that is not a vector), naming the URL.
// Ownership: the PodsMeter borrows `http`, which must outlive it.
// Thread safety: as the HttpClient (net/http_client.h); the functions keep no state.
#ifndef CARBONROUTE_MODEL_SOURCES_MEASURED_ENERGY_H_
#define CARBONROUTE_MODEL_SOURCES_MEASURED_ENERGY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ledger/metered_energy.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"

namespace carbonroute::model_sources {

// The measured energy `promql` (ledger::MeteredEnergyQuery or
// MeteredRunQuery) answers at `at`, from the Prometheus at `url`.
absl::StatusOr<ledger::MeteredPods> QueryMeteredPods(net::HttpClient& http, const std::string& url,
                                                     const std::string& promql,
                                                     absl::Duration timeout, const SourceAuth& auth,
                                                     absl::Time at);

// What Kepler and DCGM measured of Pods (ledger::PodsMeter), from the
// Prometheus at `url`: MeteredRunQuery over [from, to], evaluated
// ledger::kMeteredRunLag after `to`, each query bounded by 10 s.
ledger::PodsMeter PrometheusPodsMeter(net::HttpClient& http, std::string url, SourceAuth auth);

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_MEASURED_ENERGY_H_
