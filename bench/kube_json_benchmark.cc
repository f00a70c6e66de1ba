// Which JSON library reads Kubernetes API objects (docs/architecture.md,
// "JSON: which library for what"): a NodeList page of 5,000 GKE-shaped Nodes
// (bench/gke_node_json.h, about 12 KB each) read into discovery's KubeNode
// values, once through kube/json_view.h (simdjson, what ships) and once
// through nlohmann/json reading the same fields. Reports time per list,
// throughput, and the resident memory the parse added at its peak.
//
// Usage: kube_json_benchmark [--benchmark_* flags]
#include <benchmark/benchmark.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/gke_node_json.h"
#include "discovery/kube_api_json.h"
#include "kube/kube_client.h"

namespace carbonroute {
namespace {

constexpr int kNodes = 5000;

const std::string& NodeList() {
  static const std::string* const list = [] {
    std::vector<std::string> items;
    for (int i = 0; i < kNodes; ++i) items.push_back(bench::NodeJson(i, 50, "DE"));
    return new std::string(absl::StrCat(
        R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"123"},"items":[)",
        absl::StrJoin(items, ","), "]}"));
  }();
  return *list;
}

// kB of the process's peak resident set (VmHWM), after resetting it.
long PeakKb(bool reset) {
  if (reset) std::ofstream("/proc/self/clear_refs") << "5";
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// The fields discovery reads, with nlohmann (as hold read Jobs and Pods before kube/).
std::vector<kube::KubeNode> ReadWithNlohmann(const std::string& text) {
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, false);
  std::vector<kube::KubeNode> nodes;
  for (const nlohmann::json& item : list["items"]) {
    kube::KubeNode& node = nodes.emplace_back();
    const nlohmann::json& metadata = item["metadata"];
    node.name = metadata.value("name", "");
    const nlohmann::json& labels = metadata["labels"];
    node.region = labels.value(kube::kRegionLabel, "");
    node.zone = labels.value(kube::kZoneLabel, "");
    node.location = labels.value(kube::kLocationLabel, "");
    node.watttime_region = labels.value(kube::kWattTimeRegionLabel, "");
    node.unschedulable = item["spec"].value("unschedulable", false);
    for (const nlohmann::json& address : item["status"]["addresses"]) {
      if (address.value("type", "") == "InternalIP" && node.address.empty()) {
        node.address = address.value("address", "");
      }
    }
    for (const nlohmann::json& condition : item["status"]["conditions"]) {
      if (condition.value("type", "") == "Ready")
        node.ready = condition.value("status", "") == "True";
    }
  }
  return nodes;
}

void Report(benchmark::State& state, long peak_before, long peak_after) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(NodeList().size()));
  state.counters["list_MB"] = static_cast<double>(NodeList().size()) / 1e6;
  state.counters["peak_added_MB"] = static_cast<double>(peak_after - peak_before) / 1024.0;
}

void BM_NodeListSimdjsonJsonView(benchmark::State& state) {
  const std::string& list = NodeList();
  const long before = PeakKb(true);
  for (auto _ : state) {
    kube::JsonDocument document;
    std::vector<kube::KubeNode> nodes;
    absl::StatusOr<kube::ListPage> page =
        kube::ReadListPage(document, list, "NodeList", [&nodes](const kube::JsonField& item) {
          return kube::ReadNode(item, nodes.emplace_back());
        });
    if (!page.ok() || nodes.size() != kNodes) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(nodes);
  }
  Report(state, before, PeakKb(false));
}
BENCHMARK(BM_NodeListSimdjsonJsonView)->Unit(benchmark::kMillisecond);

void BM_NodeListNlohmann(benchmark::State& state) {
  const std::string& list = NodeList();
  const long before = PeakKb(true);
  for (auto _ : state) {
    std::vector<kube::KubeNode> nodes = ReadWithNlohmann(list);
    if (nodes.size() != kNodes) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(nodes);
  }
  Report(state, before, PeakKb(false));
}
BENCHMARK(BM_NodeListNlohmann)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace carbonroute

BENCHMARK_MAIN();
