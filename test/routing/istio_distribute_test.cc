#include "routing/istio_distribute.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::routing {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

LocalityLbSetting Distribute(std::vector<DistributeRow> rows) {
  return LocalityLbSetting{.distribute = std::move(rows)};
}

TEST(CheckLocalityLbSetting, TakesWhatIstioTakes) {
  EXPECT_THAT(CheckLocalityLbSetting(
                  Distribute({{"europe-west1/*", {{"europe-west1/*", 70}, {"europe-west4/*", 30}}},
                              {"europe-west4/*", {{"europe-west4/*", 100}}},
                              {"us-east1/b/*", {{"us-east1/b/*", 1}, {"us-east1/c", 99}}}})),
              IsOk());
  EXPECT_THAT(CheckLocalityLbSetting({}), IsOk());
  // Without distribute, failover is not this checker's business.
  EXPECT_THAT(CheckLocalityLbSetting({.failover_set = true}), IsOk());
}

// What the CRD's schema lets through and Istio refuses (or ignores).
TEST(CheckLocalityLbSetting, RefusesWhatTheSchemaLetsThrough) {
  EXPECT_THAT(CheckLocalityLbSetting(Distribute({{"a/*", {{"a/*", 100}, {"b/*", 50}}}})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "distribute[0]: total locality weight 150 != 100"));
  EXPECT_THAT(
      CheckLocalityLbSetting(Distribute({{"a/*", {{"a/*", 100}, {"b/*", 0}}}})),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("distribute[0].to[\"b/*\"]: weight 0: must be in range [1, 100]")));
  EXPECT_THAT(CheckLocalityLbSetting(Distribute({{"a/*", {{"a/*", 101}, {"b/*", -1}}}})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("weight 101")));
  EXPECT_THAT(CheckLocalityLbSetting(Distribute({{"a/*", {}}})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("total locality weight 0")));
  LocalityLbSetting with_failover = Distribute({{"a/*", {{"a/*", 100}}}});
  with_failover.failover_set = true;
  EXPECT_THAT(
      CheckLocalityLbSetting(with_failover),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'distribute' and 'failover'")));
  with_failover.failover_set = false;
  with_failover.failover_priority_set = true;
  EXPECT_THAT(CheckLocalityLbSetting(with_failover),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'failoverPriority'")));
}

TEST(CheckLocalities, WildcardsAndOverlaps) {
  EXPECT_THAT(
      CheckLocalities({"a", "b/z", "c/z/s", "d/*", "e/z/*", "*x"}, "to"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("\"*x\": wildcard '*' number can not exceed 1 and must be in the end")));
  EXPECT_THAT(CheckLocalities({"a/*/*"}, "to"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("can not exceed 1")));
  EXPECT_THAT(CheckLocalities({"a//b"}, "to"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must not contain empty region/zone/subzone info")));
  EXPECT_THAT(
      CheckLocalities({"a/b", "a/b"}, "to"),
      StatusIs(absl::StatusCode::kInvalidArgument, "to: locality \"a/b\" overlaps \"a/b\""));
  EXPECT_THAT(CheckLocalities({"a/*", "a/b"}, "to"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overlaps \"a/*\"")));
  EXPECT_THAT(CheckLocalities({"a/b/c", "a/b"}, "to"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overlaps \"a/b/c\"")));
  EXPECT_THAT(CheckLocalities({"a", "*"}, "to"),  // the webhook misses this order; we do not
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overlaps \"a\"")));
  EXPECT_THAT(
      CheckLocalities({"a/b", "a/c", "b/b", "a/b/c2"}, "to"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"a/b/c2\" overlaps \"a/b\"")));
  EXPECT_THAT(CheckLocalities({"a/b", "a/c", "b/b", "a2"}, "to"), IsOk());
  // Two rows from one origin.
  EXPECT_THAT(
      CheckLocalityLbSetting(Distribute({{"a/*", {{"a/*", 100}}}, {"a/*", {{"b/*", 100}}}})),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("distribute[].from")));
}

}  // namespace
}  // namespace carbonroute::routing
