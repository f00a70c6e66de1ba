#include "kube/pod_requests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::kube {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

TEST(ParseQuantity, ReadsEverySuffixTheApiWrites) {
  EXPECT_DOUBLE_EQ(*ParseQuantity("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("2"), 2);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("2Gi"), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseQuantity("128Mi"), 128.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1G"), 1e9);
  EXPECT_DOUBLE_EQ(*ParseQuantity("129e6"), 129e6);
  EXPECT_DOUBLE_EQ(*ParseQuantity("100k"), 1e5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("250u"), 250e-6);
  for (const char* bad : {"", "2 cores", "Gi", "1e3Gi", "two", "5x"}) {
    EXPECT_THAT(ParseQuantity(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a quantity")))
        << bad;
  }
}

TEST(ReadWorkloadRequests, SumsContainersAndTakesALimitWithoutARequest) {
  JsonDocument document;
  absl::StatusOr<JsonField> deployment = document.Parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "spec": {"replicas": 3, "template": {"spec": {
      "initContainers": [{"name": "setup", "resources": {"requests": {"cpu": "8"}}}],
      "containers": [
        {"name": "app", "resources": {"requests": {"cpu": "1500m", "memory": "2Gi"}}},
        {"name": "gpu", "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "500m"}}},
        {"name": "bare"}
      ]}}}})",
                                                        "deployment");
  ASSERT_THAT(deployment, IsOk());
  absl::StatusOr<WorkloadRequests> workload = ReadWorkloadRequests(*deployment);
  ASSERT_THAT(workload, IsOk());
  EXPECT_EQ(workload->replicas, 3);
  EXPECT_DOUBLE_EQ(workload->per_replica.cpu_cores, 2.0);  // the init container's 8 left out
  EXPECT_DOUBLE_EQ(workload->per_replica.memory_bytes, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(workload->per_replica.gpus, 1);
}

TEST(ReadWorkloadRequests, DefaultsAndMistakesAreNamed) {
  JsonDocument document;
  absl::StatusOr<JsonField> job = document.Parse(
      R"({"kind": "Job", "spec": {"template": {"spec": {"containers": [{"resources":
          {"requests": {"cpu": 2}}}]}}}})",
      "job");
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<WorkloadRequests> read = ReadWorkloadRequests(*job);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->replicas, 1);  // no parallelism: one Pod at a time
  EXPECT_DOUBLE_EQ(read->per_replica.cpu_cores, 2);

  absl::StatusOr<JsonField> typo = document.Parse(
      R"({"kind": "StatefulSet", "spec": {"template": {"spec": {"containers": [{"resources":
          {"requests": {"memory": "2 GB"}}}]}}}})",
      "statefulset");
  ASSERT_THAT(typo, IsOk());
  EXPECT_THAT(ReadWorkloadRequests(*typo), StatusIs(absl::StatusCode::kInvalidArgument,
                                                    AllOf(HasSubstr("resources.requests.memory"),
                                                          HasSubstr("not a quantity: \"2 GB\""))));

  absl::StatusOr<JsonField> service = document.Parse(R"({"kind": "Service"})", "service");
  ASSERT_THAT(service, IsOk());
  EXPECT_THAT(ReadWorkloadRequests(*service),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("kind \"Service\"")));
}

}  // namespace
}  // namespace carbonroute::kube
