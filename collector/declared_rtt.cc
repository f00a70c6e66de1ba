#include "collector/declared_rtt.h"

#include <cmath>
#include <fstream>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace carbonroute::collector {

absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRttRow(const NodeConfig& node, const RttConfig& config,
                                                        const std::string& matrix_path) {
  std::ifstream in(matrix_path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read RTT matrix \"", matrix_path, "\""));
  std::map<std::string, double> from_here;  // receiving region → ms
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const absl::string_view row = absl::StripSuffix(line, "\r");
    if (number == 1 || row.empty()) continue;
    std::vector<absl::string_view> cells = absl::StrSplit(row, ',');
    double ms = 0;
    if (cells.size() != 3 || !absl::SimpleAtod(cells[2], &ms) || !std::isfinite(ms) || ms < 0) {
      return absl::InvalidArgumentError(absl::StrCat(matrix_path, ":", number, ": expected sending_region,"
                                                     "receiving_region,milliseconds, got \"", row, "\""));
    }
    if (cells[0] == node.region) from_here[std::string(cells[1])] = ms;
  }
  std::vector<DeclaredRtt> row;
  for (const PeerConfig& peer : config.peers) {
    auto it = from_here.find(peer.region);
    if (it != from_here.end()) row.push_back({peer.name, absl::Microseconds(std::llround(it->second * 1000))});
  }
  return row;
}

}  // namespace carbonroute::collector
