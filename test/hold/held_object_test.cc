#include "hold/held_object.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hold/hold_patches.h"
#include "kube/kube_client.h"

namespace carbonroute::hold {
namespace {

using ::testing::HasSubstr;

// A JobList or PodList page as production reads it: kube::ReadListPage (what
// kube::ListAll runs on every page of ListHeld) with each item through ReadHeldObject.
absl::StatusOr<ObjectList> ParseObjectList(absl::string_view json, HeldKind kind) {
  kube::JsonDocument document;
  ObjectList list;
  absl::StatusOr<kube::ListPage> page = kube::ReadListPage(
      document, json, absl::StrCat(KindName(kind), "List"), [&](const kube::JsonField& item) {
        absl::StatusOr<HeldObject> object = ReadHeldObject(item, kind);
        if (!object.ok()) return object.status();
        list.items.push_back(*std::move(object));
        return absl::OkStatus();
      });
  if (!page.ok()) return page.status();
  list.resource_version = page->resource_version;
  list.continue_token = page->continue_token;
  return list;
}

// One object, as a watch event's or a GET's.
absl::StatusOr<HeldObject> ParseHeldObject(absl::string_view json, HeldKind kind) {
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root = document.Parse(json, KindName(kind));
  if (!root.ok()) return root.status();
  return ReadHeldObject(*root, kind);
}

TEST(ReadHeldObject, JobsAndPodsAsTheApiReturnsThem) {
  absl::StatusOr<ObjectList> jobs = ParseObjectList(R"({"kind":"JobList","metadata":{
      "resourceVersion":"42","continue":"abc"},"items":[{"metadata":{"name":"nightly",
      "namespace":"batch","uid":"u1","resourceVersion":"7","creationTimestamp":"2026-11-25T10:00:00Z",
      "annotations":{"carbonroute.io/deadline":"12h"}},"spec":{"suspend":true,"template":{"spec":{
      "nodeSelector":{"topology.kubernetes.io/region":"europe-west3"}}}}}]})",
                                                    HeldKind::kJob);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->continue_token, "abc");
  ASSERT_EQ(jobs->items.size(), 1u);
  const HeldObject& job = jobs->items[0];
  EXPECT_TRUE(job.held());
  EXPECT_EQ(job.Describe(), "Job batch/nightly");
  EXPECT_EQ(job.Path(), "/apis/batch/v1/namespaces/batch/jobs/nightly");
  EXPECT_EQ(job.node_selector.at("topology.kubernetes.io/region"), "europe-west3");
  EXPECT_EQ(job.created, absl::FromUnixSeconds(1795600800));

  absl::StatusOr<HeldObject> pod = ParseHeldObject(R"({"metadata":{"name":"p",
      "creationTimestamp":"2026-11-25T10:00:00Z"},"spec":{"schedulingGates":[{"name":"other"},
      {"name":"carbonroute.io/clean-window"}]}})",
                                                   HeldKind::kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->namespace_name, "default");
  EXPECT_EQ(pod->gate, 1u);
  EXPECT_FALSE(pod->has_annotations);
  EXPECT_EQ(pod->Path(), "/api/v1/namespaces/default/pods/p");
}

// What the savings ledger reads: when it ran, and what its Pods request.
TEST(ReadHeldObject, HowItRanAndWhatItRequests) {
  absl::StatusOr<HeldObject> job = ParseHeldObject(R"({"metadata":{"name":"j",
      "creationTimestamp":"2026-11-25T10:00:00Z"},"spec":{"parallelism":3,"template":{"spec":{
      "containers":[{"name":"a","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}}]}}},
      "status":{"startTime":"2026-11-25T16:00:04Z","completionTime":"2026-11-25T18:30:04Z"}})",
                                                   HeldKind::kJob);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->started, absl::FromUnixSeconds(1795600800 + 6 * 3600 + 4));
  EXPECT_EQ(job->finished, *job->started + absl::Minutes(150));
  ASSERT_TRUE(job->requests.has_value());
  EXPECT_EQ(job->requests->replicas, 3);
  EXPECT_EQ(job->requests->per_replica.cpu_cores, 0.5);
  EXPECT_EQ(job->requests->per_replica.memory_bytes, 1024.0 * 1024 * 1024);

  // A failed Job ended when it was marked Failed; one still running has not ended.
  absl::StatusOr<HeldObject> failed = ParseHeldObject(R"({"metadata":{"name":"j",
      "creationTimestamp":"2026-11-25T10:00:00Z"},"spec":{},"status":{
      "startTime":"2026-11-25T10:00:00Z","conditions":[{"type":"Suspended","status":"False",
      "lastTransitionTime":"2026-11-25T10:00:00Z"},{"type":"Failed","status":"True",
      "lastTransitionTime":"2026-11-25T11:00:00Z"}]}})",
                                                      HeldKind::kJob);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(failed->finished, absl::FromUnixSeconds(1795600800 + 3600));

  // A Pod ended when its last container did, once its phase is final.
  const std::string pod_json = R"({"metadata":{"name":"p",
      "creationTimestamp":"2026-11-25T10:00:00Z"},"spec":{"containers":[{"name":"a",
      "resources":{"requests":{"cpu":"2"}}}]},"status":{"phase":"PHASE",
      "startTime":"2026-11-25T10:00:00Z","containerStatuses":[
      {"state":{"terminated":{"finishedAt":"2026-11-25T11:00:00Z"}}},
      {"state":{"terminated":{"finishedAt":"2026-11-25T12:00:00Z"}}}]}})";
  absl::StatusOr<HeldObject> pod =
      ParseHeldObject(absl::StrReplaceAll(pod_json, {{"PHASE", "Succeeded"}}), HeldKind::kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->finished, absl::FromUnixSeconds(1795600800 + 2 * 3600));
  EXPECT_EQ(pod->requests->per_replica.cpu_cores, 2);
  pod = ParseHeldObject(absl::StrReplaceAll(pod_json, {{"PHASE", "Running"}}), HeldKind::kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_FALSE(pod->finished.has_value());

  // A request that is no quantity leaves the hold working and says why for the ledger.
  absl::StatusOr<HeldObject> odd = ParseHeldObject(R"({"metadata":{"name":"p",
      "creationTimestamp":"2026-11-25T10:00:00Z"},"spec":{"containers":[{"name":"a",
      "resources":{"requests":{"cpu":"2 cores"}}}]}})",
                                                   HeldKind::kPod);
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_FALSE(odd->requests.has_value());
  EXPECT_THAT(odd->requests_error, HasSubstr("2 cores"));
  // A status time that is not a time names the field.
  EXPECT_THAT(ParseHeldObject(R"({"metadata":{"name":"j",
      "creationTimestamp":"2026-11-25T10:00:00Z"},"spec":{},"status":{"startTime":"soon"}})",
                              HeldKind::kJob)
                  .status()
                  .message(),
              HasSubstr("status.startTime: expected an RFC 3339 time"));
}

TEST(ReadHeldObject, MistakesNameTheField) {
  EXPECT_THAT(ParseObjectList("nope", HeldKind::kJob).status().message(), HasSubstr("JobList"));
  EXPECT_THAT(ParseObjectList(R"({"items":[{"metadata":{"name":3},"spec":{}}]})", HeldKind::kPod)
                  .status()
                  .message(),
              HasSubstr("PodList: items[0].metadata.name: expected a non-empty string"));
  EXPECT_THAT(ParseHeldObject(R"({"metadata":{"name":"j","creationTimestamp":"x"},"spec":{}})",
                              HeldKind::kJob)
                  .status()
                  .message(),
              HasSubstr("metadata.creationTimestamp"));
  EXPECT_THAT(
      ParseHeldObject(R"({"metadata":{"name":"j","creationTimestamp":"2026-11-25T10:00:00Z"},
      "spec":{"suspend":"yes"}})",
                      HeldKind::kJob)
          .status()
          .message(),
      HasSubstr("spec.suspend: expected a boolean"));
}

TEST(ReleasePatch, AJobIsUnsuspendedAPodLosesOnlyTheGate) {
  HeldObject job;
  job.kind = HeldKind::kJob;
  HoldPlan plan;
  plan.reason = ReleaseReason::kWindow;
  const absl::Time now = absl::FromUnixSeconds(1795600800);
  Patch patch = ReleasePatch(job, plan, now, 123.45);
  EXPECT_EQ(patch.content_type, kube::kMergePatch);
  nlohmann::json body = nlohmann::json::parse(patch.body);
  EXPECT_EQ(body["spec"]["suspend"], false);
  EXPECT_EQ(body["metadata"]["annotations"][kReleasedAtAnnotation], "2026-11-25T10:00:00Z");
  EXPECT_EQ(body["metadata"]["annotations"][kReleaseReasonAnnotation], "window");
  EXPECT_EQ(body["metadata"]["annotations"][kReleaseIntensityAnnotation], "123.5");

  HeldObject pod;
  pod.kind = HeldKind::kPod;
  pod.gate = 2;
  pod.has_annotations = true;
  patch = ReleasePatch(pod, plan, now, std::nullopt);
  EXPECT_EQ(patch.content_type, kube::kJsonPatch);
  body = nlohmann::json::parse(patch.body);
  EXPECT_EQ(body[0]["op"], "test");
  EXPECT_EQ(body[0]["path"], "/spec/schedulingGates/2/name");
  EXPECT_EQ(body[1]["op"], "remove");
  EXPECT_EQ(body[1]["path"], "/spec/schedulingGates/2");
  EXPECT_EQ(body[2]["path"], "/metadata/annotations/carbonroute.io~1released-at");
  EXPECT_EQ(body.size(), 4u);  // no intensity: not written
}

}  // namespace
}  // namespace carbonroute::hold
