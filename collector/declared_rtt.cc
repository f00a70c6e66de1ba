#include "collector/declared_rtt.h"

#include <map>

#include "base/data_files.h"
#include "contract/rtt_matrix.h"

namespace carbonroute::collector {

absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRttRow(const NodeConfig& node,
                                                        const RttConfig& config,
                                                        const std::string& matrix_path) {
  absl::StatusOr<std::string> text = ReadFileToString(matrix_path, "RTT matrix");
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<RttMatrixEntry>> matrix = ParseRttMatrixCsv(*text, matrix_path);
  if (!matrix.ok()) return matrix.status();
  std::map<std::string, absl::Duration> from_here;  // receiving region → RTT
  for (const RttMatrixEntry& entry : *matrix) {
    if (entry.sending_region == node.region) from_here[entry.receiving_region] = entry.rtt;
  }
  std::vector<DeclaredRtt> row;
  for (const PeerConfig& peer : config.peers) {
    auto it = from_here.find(peer.region);
    if (it != from_here.end()) row.push_back({peer.name, it->second});
  }
  return row;
}

}  // namespace carbonroute::collector
