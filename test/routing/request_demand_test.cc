#include "routing/request_demand.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

namespace carbonroute::routing {
namespace {

model_sources::Sample Rate(std::map<std::string, std::string> labels, double value) {
  return {.name = "", .labels = std::move(labels), .value = value};
}

TEST(RequestRateQuery, AsksForTheClientsRatesToOneServiceByPod) {
  EXPECT_EQ(RequestRateQuery({.namespace_name = "shop", .name = "checkout"}),
            "sum by (namespace, pod, kubernetes_namespace, kubernetes_pod_name, "
            "source_workload_namespace) (rate(istio_requests_total{reporter=\"source\", "
            "destination_service_name=\"checkout\", destination_service_namespace=\"shop\"}[5m]))");
  // A name is a PromQL string: a quote cannot end it early.
  EXPECT_THAT(RequestRateQuery({.namespace_name = "a\"b", .name = "c\\d"}),
              ::testing::HasSubstr(R"(destination_service_name="c\\d", )"
                                   R"(destination_service_namespace="a\"b")"));
}

TEST(ReadClientRates, OneRatePerPodFromEitherLabelScheme) {
  const ClientRates rates = ReadClientRates({
      Rate({{"namespace", "shop"}, {"pod", "web-1"}}, 2),
      // Older scrape configurations: kubernetes_*; the namespace from the workload's.
      Rate({{"kubernetes_pod_name", "web-2"}, {"source_workload_namespace", "shop"}}, 3),
      Rate({{"namespace", "shop"}, {"pod", "web-1"}}, 0.5),  // summed with the first
      Rate({{"source_workload_namespace", "shop"}}, 7),      // no Pod: unattributed
      Rate({{"namespace", "shop"}, {"pod", "bad"}}, -1),     // left out
      Rate({{"namespace", "shop"}, {"pod", "nan"}}, std::numeric_limits<double>::quiet_NaN()),
  });
  ASSERT_EQ(rates.clients.size(), 2u);
  EXPECT_EQ(rates.clients[0].pod, "web-1");
  EXPECT_DOUBLE_EQ(rates.clients[0].per_second, 2.5);
  EXPECT_EQ(rates.clients[1].pod, "web-2");
  EXPECT_EQ(rates.clients[1].namespace_name, "shop");
  EXPECT_DOUBLE_EQ(rates.clients[1].per_second, 3);
  EXPECT_DOUBLE_EQ(rates.unattributed, 7);
}

TEST(DemandByLocality, EachPodsRateGoesToItsNodesLocality) {
  const std::map<std::string, kube::KubeNode> nodes = {
      {"de-1", {.name = "de-1", .region = "europe-west3", .zone = "europe-west3-a"}},
      {"lost", {.name = "lost"}}};  // no region
  const ClientRates rates{
      .clients = {{"shop", "a", 1}, {"shop", "b", 2}, {"shop", "c", 4}, {"shop", "gone", 8}},
      .unattributed = 16};
  const std::map<std::string, std::string> pod_nodes = {
      {"shop/a", "de-1"}, {"shop/b", "de-1"}, {"shop/c", "lost"}};
  const LocalityDemand region = DemandByLocality(rates, pod_nodes, nodes, LocalityLevel::kRegion);
  EXPECT_EQ(region.per_second, (std::map<std::string, double>{{"europe-west3/*", 3}}));
  EXPECT_DOUBLE_EQ(region.unlocated, 4 + 8 + 16);
  EXPECT_EQ(DemandByLocality(rates, pod_nodes, nodes, LocalityLevel::kZone).per_second,
            (std::map<std::string, double>{{"europe-west3/europe-west3-a/*", 3}}));
}

}  // namespace
}  // namespace carbonroute::routing
