#include "providers/make_provider.h"

#include <gtest/gtest.h>

namespace carbonroute::providers {
namespace {

TEST(CallsAnApi, OnlyTheLiveProvidersDo) {
  ProviderConfig config;
  for (ProviderType type : {ProviderType::kWattTime, ProviderType::kElectricityMaps,
                            ProviderType::kUkCarbonIntensity}) {
    config.type = type;
    EXPECT_TRUE(CallsAnApi(config)) << ProviderTypeName(type);
  }
  for (ProviderType type : {ProviderType::kReplay, ProviderType::kStatic}) {
    config.type = type;
    EXPECT_FALSE(CallsAnApi(config)) << ProviderTypeName(type);
  }
}

}  // namespace
}  // namespace carbonroute::providers
