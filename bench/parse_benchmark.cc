// Parse throughput of provider responses, against simdjson's own parse of the
// same bytes (the ceiling: our parsers add field extraction, time parsing and
// unit conversion on top of it).
//
//   cmake -S . -B build -DCARBONROUTE_BUILD_BENCHMARKS=ON && cmake --build build
//   ./build/bin/parse_benchmark
//
// Bodies are generated in the shapes the providers document (https://docs.watttime.org,
// https://carbon-intensity.github.io/api-definitions/):
//   - WattTime /v3/forecast, 72 h at 5 min = 864 points (the maximum forecast length)
//   - UK /regional/intensity/{from}/fw48h, all 17 regions × 96 half hours with
//     generation mixes, pretty-printed as the API serves it (~2.8 MB)
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "providers/uk_carbon_intensity_parser.h"
#include "providers/watttime_parser.h"

namespace {

std::string WattTimeForecast864() {
  std::string body = "{\n    \"data\": [\n";
  const absl::Time start = absl::FromUnixSeconds(1657843200);
  for (int i = 0; i < 864; ++i) {
    absl::StrAppendFormat(
        &body,
        "       {\n          \"point_time\": \"%s\",\n          \"value\": %.13f\n        }%s\n",
        absl::FormatTime("%Y-%m-%dT%H:%M:%S+00:00", start + absl::Minutes(5 * i),
                         absl::UTCTimeZone()),
        900 + (i % 97) * 1.7318, i + 1 < 864 ? "," : "");
  }
  body += R"(    ],
 "meta": {"data_point_period_seconds": 300, "region": "CAISO_NORTH", "warnings": [],
   "signal_type": "co2_moer", "model": {"date": "2023-03-01"}, "units": "lbs_co2_per_mwh",
   "generated_at_period_seconds": 300, "generated_at": "2022-07-15T00:00:00+00:00"}
})";
  return body;
}

std::string UkRegionalFw48h() {
  static const char* kFuels[] = {"biomass", "coal",  "imports", "gas", "nuclear",
                                 "other",   "hydro", "solar",   "wind"};
  std::string body = "{\n  \"data\": [\n";
  const absl::Time start = absl::FromUnixSeconds(1516449600);
  for (int p = 0; p < 96; ++p) {
    absl::StrAppendFormat(
        &body, "    {\n      \"from\": \"%s\",\n      \"to\": \"%s\",\n      \"regions\": [\n",
        absl::FormatTime("%Y-%m-%dT%H:%MZ", start + absl::Minutes(30 * p), absl::UTCTimeZone()),
        absl::FormatTime("%Y-%m-%dT%H:%MZ", start + absl::Minutes(30 * (p + 1)),
                         absl::UTCTimeZone()));
    for (int r = 1; r <= 17; ++r) {
      absl::StrAppendFormat(
          &body,
          "        {\n          \"regionid\": %d,\n          \"dnoregion\": \"Scottish Hydro "
          "Electric Power Distribution %d\",\n"
          "          \"shortname\": \"Region %d\",\n          \"intensity\": {\n            "
          "\"forecast\": %d,\n"
          "            \"index\": \"moderate\"\n          },\n          \"generationmix\": [\n",
          r, r, r, 100 + (p * 7 + r * 13) % 200);
      for (int f = 0; f < 9; ++f) {
        absl::StrAppendFormat(&body,
                              "            {\n              \"fuel\": \"%s\",\n              "
                              "\"perc\": %.1f\n            }%s\n",
                              kFuels[f], (p + r + f) % 40 * 1.3, f + 1 < 9 ? "," : "");
      }
      absl::StrAppend(&body, "          ]\n        }", r < 17 ? "," : "", "\n");
    }
    absl::StrAppend(&body, "      ]\n    }", p + 1 < 96 ? "," : "", "\n");
  }
  body += "  ]\n}\n";
  return body;
}

void SetBytes(benchmark::State& state, const std::string& body) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
  state.counters["body_bytes"] = static_cast<double>(body.size());
}

void BM_WattTimeForecast864(benchmark::State& state) {
  const std::string body = WattTimeForecast864();
  for (auto _ : state) {
    auto signal = carbonroute::providers::ParseWattTimeSignal(body, "wt", "CAISO_NORTH");
    if (!signal.ok() || signal->points.size() != 864) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(signal);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_WattTimeForecast864);

void BM_UkRegionalFw48h(benchmark::State& state) {
  const std::string body = UkRegionalFw48h();
  for (auto _ : state) {
    auto periods = carbonroute::providers::ParseUkCarbonIntensity(body, "uk", "region/13");
    if (!periods.ok() || periods->size() != 96) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(periods);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_UkRegionalFw48h);

// The ceiling: simdjson's DOM parse of the same bytes, nothing extracted.
void SimdjsonOnly(benchmark::State& state, const std::string& body) {
  simdjson::dom::parser parser;
  for (auto _ : state) {
    simdjson::dom::element root;
    if (parser.parse(body.data(), body.size()).get(root)) state.SkipWithError("simdjson failed");
    benchmark::DoNotOptimize(root);
  }
  SetBytes(state, body);
}
void BM_SimdjsonOnly_WattTimeForecast864(benchmark::State& state) {
  SimdjsonOnly(state, WattTimeForecast864());
}
BENCHMARK(BM_SimdjsonOnly_WattTimeForecast864);
void BM_SimdjsonOnly_UkRegionalFw48h(benchmark::State& state) {
  SimdjsonOnly(state, UkRegionalFw48h());
}
BENCHMARK(BM_SimdjsonOnly_UkRegionalFw48h);

}  // namespace

BENCHMARK_MAIN();
