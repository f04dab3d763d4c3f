// Candidate throughput of the GEMM space: draw, normalize and hash, the work a search does per
// candidate before anything is compiled. Target: at least a million a second on one core.
#include <benchmark/benchmark.h>

#include "gemm/gemm_space.hpp"

namespace cutune {
namespace {

void BM_GemmDrawNormalizeHash(benchmark::State& state) {
  const std::unique_ptr<TuningSpace> ts = make_gemm_space();
  const Problem problem = gemm_problem(2048, 4096, 4096, "bf16");
  const Device device = Device::h200();
  Rng rng(0);
  std::uint64_t mix = 0;
  for (auto _ : state) {
    Normalized n = ts->space.normalize(ts->space.draw(rng), problem, device);
    mix ^= n.config ? n.config->hash() : 0;
  }
  benchmark::DoNotOptimize(mix);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GemmDrawNormalizeHash);

void BM_GemmEncodeDecodeSearchGenes(benchmark::State& state) {
  const std::unique_ptr<TuningSpace> ts = make_gemm_space();
  Rng rng(0);
  const Config c = ts->space.draw(rng);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ts->space.decode(ts->space.encode(c, View::search), View::search));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GemmEncodeDecodeSearchGenes);

void BM_GemmFeatures(benchmark::State& state) {
  const std::unique_ptr<TuningSpace> ts = make_gemm_space();
  Rng rng(0);
  const Config c = ts->space.draw(rng);
  for (auto _ : state) benchmark::DoNotOptimize(ts->space.features(c));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GemmFeatures);

}  // namespace
}  // namespace cutune
