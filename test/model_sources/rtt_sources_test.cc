#include "model_sources/rtt_sources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "test/testing/build_paths.h"
#include "test/testing/subprocess.h"

namespace carbonroute::model_sources {
namespace {

using ::testing::HasSubstr;

// The queries are documented where people read them (docs/scheduler-lite.md), as the code
// runs them; the help names the sources in one line and points there.
TEST(RttSources, TheDocsShowTheQueriesTheCodeRunsAndTheHelpPointsThere) {
  const std::string docs =
      testing::ReadFile(std::string(CARBONROUTE_SOURCE_DIR) + "/docs/scheduler-lite.md");
  for (RttExporter source : kRttExporters) {
    if (source == RttExporter::kCarbonroute) continue;
    EXPECT_THAT(docs, HasSubstr("```promql\n" + PromQlFor(source) + "\n```"))
        << RttExporterName(source);
  }
  const std::string help = RttSourcesHelp();
  EXPECT_LT(help.size(), 400u);
  EXPECT_THAT(help, HasSubstr("goldpinger, monlat, smokeping_prober"));
  EXPECT_THAT(help, HasSubstr("docs/scheduler-lite.md"));
}

}  // namespace
}  // namespace carbonroute::model_sources
