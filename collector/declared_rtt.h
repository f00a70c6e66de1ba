// File: collector/declared_rtt.h
//
// This node's row of the RTT matrix from a static matrix, for places that
// cannot (yet) be probed: for each configured peer, the matrix's RTT from this
// node's region to the peer's region, exported as
// carbonroute_rtt_seconds{source=<node>, target=<peer>, method="declared"}.
// A pair the matrix does not list is not exported ("no measurement", never 0).
//
// Errors: kNotFound if the matrix file cannot be read; kInvalidArgument
// "file:line: ..." for a malformed row.
// Thread safety: pure function (reads one file).
#ifndef CARBONROUTE_COLLECTOR_DECLARED_RTT_H_
#define CARBONROUTE_COLLECTOR_DECLARED_RTT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "config/collector_config.h"

namespace carbonroute::collector {

struct DeclaredRtt {
  std::string target;
  absl::Duration rtt;
};

// `matrix_path` is the resolved path of config.rtt.static_matrix.
absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRttRow(const NodeConfig& node,
                                                        const RttConfig& config,
                                                        const std::string& matrix_path);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_DECLARED_RTT_H_
