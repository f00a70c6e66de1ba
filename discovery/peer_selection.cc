#include "discovery/peer_selection.h"

#include <algorithm>
#include <map>
#include <utility>

namespace carbonroute::discovery {
namespace {

// FNV-1a, 64 bit (http://www.isthe.com/chongo/tech/comp/fnv/).
uint64_t Fnv1a(absl::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// SplitMix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Combine(uint64_t source_hash, uint64_t target_hash) {
  return Mix(source_hash ^ Mix(target_hash));
}

}  // namespace

uint64_t RendezvousWeight(absl::string_view source, absl::string_view target) {
  return Combine(Fnv1a(source), Fnv1a(target));
}

PeerSelectionMode EffectiveMode(const PeerSelectionConfig& config, std::size_t node_count) {
  if (config.mode != PeerSelectionMode::kAuto) return config.mode;
  return node_count < static_cast<std::size_t>(PeerSelectionConfig::kAutoSampledFrom)
             ? PeerSelectionMode::kAll
             : PeerSelectionMode::kSampled;
}

std::vector<std::size_t> SelectPeers(absl::string_view source_name, absl::string_view source_zone,
                                     const std::vector<kube::KubeNode>& nodes,
                                     const PeerSelectionConfig& config) {
  std::vector<std::size_t> chosen;
  const PeerSelectionMode mode = EffectiveMode(config, nodes.size());
  if (mode == PeerSelectionMode::kNone) return chosen;
  if (mode == PeerSelectionMode::kAll) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].name != source_name && !nodes[i].address.empty()) chosen.push_back(i);
    }
    return chosen;
  }
  // zone → (weight, index) of its candidates.
  std::map<absl::string_view, std::vector<std::pair<uint64_t, std::size_t>>> zones;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const kube::KubeNode& node = nodes[i];
    if (node.name == source_name || node.address.empty()) continue;
    zones[node.zone].emplace_back(RendezvousWeight(source_name, node.name), i);
  }
  for (auto& [zone, candidates] : zones) {
    const std::size_t wanted =
        static_cast<std::size_t>(zone == source_zone ? config.same_zone : config.per_remote_zone);
    const std::size_t take = std::min(wanted, candidates.size());
    // Highest weight first; ties (equal 64-bit weights) broken by index.
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(take),
                      candidates.end(), [](const auto& a, const auto& b) {
                        return a.first != b.first ? a.first > b.first : a.second < b.second;
                      });
    for (std::size_t i = 0; i < take; ++i) chosen.push_back(candidates[i].second);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace carbonroute::discovery
