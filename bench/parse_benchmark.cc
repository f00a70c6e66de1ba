// Parse throughput of provider responses, against simdjson's own parse of the
// same bytes (the ceiling: our parsers add field extraction, time parsing and
// unit conversion on top of it).
//
//   cmake -S . -B build -DCARBONROUTE_BUILD_BENCHMARKS=ON && cmake --build build
//   ./build/bin/parse_benchmark
//
// Bodies are generated in the shapes the providers document (https://docs.watttime.org,
// https://carbon-intensity.github.io/api-definitions/,
// https://static.electricitymaps.com/api/docs/index.html), one case per parser the
// collector runs on every poll:
//   - WattTime /v3/forecast, 72 h at 5 min = 864 points (the maximum forecast length)
//   - UK /regional/intensity/{from}/fw48h, all 17 regions × 96 half hours with
//     generation mixes, pretty-printed as the API serves it (1.8 MB)
//   - Electricity Maps /v3/carbon-intensity/latest, /history (24 hourly points)
//     and /forecast (72 hourly points), pretty-printed as the API serves them
//   - the replay provider's trace, the shipped CSV (123 zones × 8,760 hours), once per start
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "contract/intensity_trace.h"
#include "providers/electricity_maps_parser.h"
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

// One Electricity Maps point as /history and /latest write it.
std::string ElectricityMapsPoint(absl::Time at, int value, bool estimated) {
  return absl::StrFormat(
      "{\n      \"zone\": \"DE\",\n      \"carbonIntensity\": %d,\n      \"datetime\": "
      "\"%s\",\n      \"updatedAt\": \"2024-03-06T15:48:54.012Z\",\n      \"createdAt\": "
      "\"2024-03-02T20:47:49.346Z\",\n      \"emissionFactorType\": \"lifecycle\",\n      "
      "\"isEstimated\": %s,\n      \"estimationMethod\": %s\n    }",
      value, absl::FormatTime("%Y-%m-%dT%H:%M:%S.000Z", at, absl::UTCTimeZone()),
      estimated ? "true" : "false", estimated ? "\"TIME_SLICER_AVERAGE\"" : "null");
}

std::string ElectricityMapsLatest() {
  return ElectricityMapsPoint(absl::FromUnixSeconds(1709751600), 216, true);
}

std::string ElectricityMapsHistory24h() {
  std::string body = "{\n  \"zone\": \"DE\",\n  \"history\": [\n    ";
  for (int i = 0; i < 24; ++i) {
    absl::StrAppend(&body, i == 0 ? "" : ",\n    ",
                    ElectricityMapsPoint(absl::FromUnixSeconds(1709668800 + 3600 * i),
                                         400 + (i * 37) % 200, i > 20));
  }
  return body + "\n  ]\n}\n";
}

std::string ElectricityMapsForecast72h() {
  std::string body = "{\n  \"zone\": \"DE\",\n  \"forecast\": [\n";
  for (int i = 0; i < 72; ++i) {
    absl::StrAppendFormat(
        &body, "    {\n      \"carbonIntensity\": %d,\n      \"datetime\": \"%s\"\n    }%s\n",
        400 + (i * 37) % 200,
        absl::FormatTime("%Y-%m-%dT%H:%M:%S.000Z", absl::FromUnixSeconds(1683057600 + 3600 * i),
                         absl::UTCTimeZone()),
        i + 1 < 72 ? "," : "");
  }
  return body + "  ],\n  \"updatedAt\": \"2023-05-02T19:52:09.141Z\"\n}\n";
}

void SetBytes(benchmark::State& state, const std::string& body) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
  state.counters["body_bytes"] = static_cast<double>(body.size());
}

void BM_WattTimeForecast864(benchmark::State& state) {
  const std::string body = WattTimeForecast864();
  for (auto _ : state) {
    auto signal = carbonroute::providers::ParseWattTimeSignal(body, "CAISO_NORTH");
    if (!signal.ok() || signal->points.size() != 864) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(signal);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_WattTimeForecast864);

void BM_UkRegionalFw48h(benchmark::State& state) {
  const std::string body = UkRegionalFw48h();
  for (auto _ : state) {
    auto periods = carbonroute::providers::ParseUkCarbonIntensity(body, "region/13");
    if (!periods.ok() || periods->size() != 96) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(periods);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_UkRegionalFw48h);

void BM_ElectricityMapsLatest(benchmark::State& state) {
  const std::string body = ElectricityMapsLatest();
  for (auto _ : state) {
    auto reading = carbonroute::providers::ParseElectricityMapsLatest(body, "DE");
    if (!reading.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(reading);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_ElectricityMapsLatest);

void BM_ElectricityMapsHistory24h(benchmark::State& state) {
  const std::string body = ElectricityMapsHistory24h();
  for (auto _ : state) {
    auto readings = carbonroute::providers::ParseElectricityMapsHistory(body, "DE");
    if (!readings.ok() || readings->size() != 24) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(readings);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_ElectricityMapsHistory24h);

void BM_ElectricityMapsForecast72h(benchmark::State& state) {
  const std::string body = ElectricityMapsForecast72h();
  for (auto _ : state) {
    auto readings = carbonroute::providers::ParseElectricityMapsForecast(body, "DE");
    if (!readings.ok() || readings->size() != 72) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(readings);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_ElectricityMapsForecast72h);

// The replay provider's input: the shipped trace, read from the source tree.
void BM_ReplayTrace2022(benchmark::State& state) {
  std::ifstream file(CARBONROUTE_TRACE_CSV);
  std::stringstream text;
  text << file.rdbuf();
  const std::string body = text.str();
  if (body.empty()) state.SkipWithError("cannot read " CARBONROUTE_TRACE_CSV);
  for (auto _ : state) {
    auto trace = carbonroute::IntensityTrace::Parse(body, "carbon-intensity-2022-hourly.csv");
    if (!trace.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(trace);
  }
  SetBytes(state, body);
}
BENCHMARK(BM_ReplayTrace2022)->Unit(benchmark::kMillisecond);

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
void BM_SimdjsonOnly_ElectricityMapsForecast72h(benchmark::State& state) {
  SimdjsonOnly(state, ElectricityMapsForecast72h());
}
BENCHMARK(BM_SimdjsonOnly_ElectricityMapsForecast72h);

}  // namespace

BENCHMARK_MAIN();
