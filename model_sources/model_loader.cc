#include "model_sources/model_loader.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "model_sources/metrics_source.h"
#include "model_sources/model_builder.h"

namespace carbonroute::model_sources {
namespace {

bool HasCarbonrouteSeries(const std::vector<Sample>& samples) {
  return std::any_of(samples.begin(), samples.end(),
                     [](const Sample& s) { return absl::StartsWith(s.name, "carbonroute_"); });
}

}  // namespace

LoadedModel LoadModel(const ModelSources& sources, net::HttpClient& http, absl::Time now) {
  LoadedModel loaded;
  ModelBuilder builder(now, sources.emissions_type);
  builder.SetRttSources(sources.rtt_sources);
  if (!sources.metrics_urls.empty()) {
    SourceResult scraped =
        ScrapeCollectors(http, sources.metrics_urls, sources.timeout, sources.auth);
    loaded.sources_read += static_cast<int>(sources.metrics_urls.size() - scraped.errors.size());
    if (scraped.errors.empty() && !HasCarbonrouteSeries(scraped.samples)) {
      loaded.errors.push_back(
          absl::NotFoundError(absl::StrCat(absl::StrJoin(sources.metrics_urls, ", "),
                                           " answered, but with no carbonroute series (is it a "
                                           "carbonroute collector's /metrics?)")));
    }
    builder.AddSamples(scraped.samples);
    for (absl::Status& error : scraped.errors) loaded.errors.push_back(std::move(error));
  }
  if (!sources.prometheus_url.empty()) {
    SourceResult queried =
        QueryPrometheus(http, sources.prometheus_url, sources.timeout, sources.auth);
    if (queried.errors.empty() || !queried.samples.empty()) ++loaded.sources_read;
    if (queried.errors.empty() && !HasCarbonrouteSeries(queried.samples)) {
      loaded.errors.push_back(absl::NotFoundError(
          absl::StrCat(sources.prometheus_url,
                       " answered, but has no carbonroute series (does it scrape a collector?)")));
    }
    builder.AddSamples(queried.samples);
    for (absl::Status& error : queried.errors) loaded.errors.push_back(std::move(error));
    for (RttExporter source : sources.rtt_sources) {
      if (source == RttExporter::kCarbonroute) continue;
      SourceResult rtt =
          QueryRttSource(http, sources.prometheus_url, source, sources.timeout, sources.auth);
      builder.AddSamples(rtt.samples);
      for (absl::Status& error : rtt.errors) loaded.errors.push_back(std::move(error));
    }
  }
  const std::pair<const std::string*,
                  absl::Status (ModelBuilder::*)(absl::string_view, absl::string_view)>
      files[] = {{&sources.rtt_matrix_csv, &ModelBuilder::AddStaticRttCsv},
                 {&sources.region_locations_csv, &ModelBuilder::AddRegionLocationsCsv}};
  for (const auto& [path, add] : files) {
    if (path->empty()) continue;
    absl::StatusOr<std::string> text = ReadFileToString(*path, "data file");
    absl::Status status = text.ok() ? (builder.*add)(*text, *path) : text.status();
    if (!status.ok()) loaded.errors.push_back(status);
  }
  loaded.node_mismatches = builder.AddApiNodes(sources.api_nodes);
  loaded.model = builder.Build();
  return loaded;
}

ModelLoader LoaderOf(const ModelSources& sources, net::HttpClient& http) {
  return [&sources, &http](absl::Time now) { return LoadModel(sources, http, now); };
}

}  // namespace carbonroute::model_sources
