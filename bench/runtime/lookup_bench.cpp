// The lookup-only runtime's cost per call: a prepared query of a tuned shape (the bar: under
// 100 ns), the same for an untuned shape answered by the nearest tuned one (memoized after the
// first call), and prepare() itself, which a program does once per shape.
//   build/release/bench/runtime/bench_lookup
#include <benchmark/benchmark.h>

#include <string>

#include "cutune/lookup.hpp"

namespace {

// A table as `cutune export --json` writes it: 3 families x 2 devices x 96 shapes.
cutune::LookupTable make_table() {
  nlohmann::json results = nlohmann::json::array();
  for (const std::string family : {"gemm", "conv", "reduce"}) {
    for (const std::string device : {"NVIDIA H200 sm_90", "NVIDIA A100 sm_80"}) {
      for (int m = 128; m <= 65536; m *= 2) {
        for (int n : {256, 1024, 4096, 8192}) {
          for (const std::string dtype : {"bf16", "f16"}) {
            results.push_back(
                {{"family", family},
                 {"family_version", "v1"},
                 {"problem",
                  "dtype=" + dtype + ",k=4096,m=" + std::to_string(m) + ",n=" + std::to_string(n)},
                 {"device", device},
                 {"toolchain", "nvcc 13.0"},
                 {"config", {{"BM", 128}, {"BN", n >= 1024 ? 256 : 128}, {"stages", 4}}},
                 {"time_ms", 0.001 * m},
                 {"timestamp", 1.0}});
          }
        }
      }
    }
  }
  return cutune::LookupTable::from_json(
      {{"format", "cutune-best"}, {"version", 2}, {"results", results}},
      {.on_fallback = [](const cutune::LookupEvent&) {}});
}

const cutune::LookupTable& table() {
  static const cutune::LookupTable instance = make_table();
  return instance;
}

void tuned_prepared(benchmark::State& state) {
  const auto query =
      table().prepare("gemm", "m=4096,n=4096,k=4096,dtype=bf16", "NVIDIA H200 sm_90");
  for (auto _ : state) benchmark::DoNotOptimize(&table().find(query));
}
BENCHMARK(tuned_prepared);

void untuned_prepared(benchmark::State& state) {
  const auto query =
      table().prepare("gemm", "m=5000,n=3000,k=4096,dtype=bf16", "NVIDIA H200 sm_90");
  table().find(query);  // the first call resolves the nearest shape and reports it
  for (auto _ : state) benchmark::DoNotOptimize(&table().find(query));
}
BENCHMARK(untuned_prepared);

void prepare_then_find(benchmark::State& state) {
  for (auto _ : state) {
    const auto query =
        table().prepare("gemm", "m=4096,n=4096,k=4096,dtype=bf16", "NVIDIA H200 sm_90");
    benchmark::DoNotOptimize(&table().find(query));
  }
}
BENCHMARK(prepare_then_find);

}  // namespace

BENCHMARK_MAIN();
