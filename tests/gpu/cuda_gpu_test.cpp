// The CUDA backend on a real GPU: the example kernels run and pass their checks, a cluster launch
// reaches the kernel, every failure of the fault spec is classified as it should be, the same
// config timed by separate tunes agrees within 2%, the worker's paired rounds of a spec warm up
// until steady and time every config in every round, and an inout buffer is restored before each
// launch and compared with the default config's result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "cutune/cuda.hpp"
#include "cutune/cuda/compile.hpp"
#include "cutune/cuda/device_worker_pool.hpp"
#include "cutune/space.hpp"
#include "faults_expected.hpp"

namespace cutune {
namespace {

std::filesystem::path example(const std::string& name) {
  return std::filesystem::path(CUTUNE_EXAMPLES_DIR) / name;
}

std::filesystem::path cache_dir() {
  return std::filesystem::temp_directory_path() / "cutune-gpu-test-cache";
}

CudaOptions options() {
  CudaOptions o;
  o.cache_dir = cache_dir();
  return o;
}

std::vector<Config> configs(const KernelSpec& spec, const std::vector<PartialConfig>& partials) {
  std::vector<Config> out;
  for (const auto& partial : partials) out.push_back(spec.tuning->space.complete(partial));
  return out;
}

TEST(CudaGpu, ReductionConfigsAreCorrectAndTimed) {
  KernelSpec spec = load_spec(example("reduction.json"));
  CudaEvaluator evaluator(spec, {}, options());
  // The device as the store keys it: its name and architecture ("NVIDIA H200 (sm_90)"), on any
  // card the GPU machine lends.
  EXPECT_NE(evaluator.device_name().find("(sm_"), std::string::npos) << evaluator.device_name();
  auto batch = configs(spec, {{},
                              {{"VEC", Value(4)}, {"UNROLL", Value(4)}},
                              {{"BLOCK_THREADS", Value(1024)}, {"WARP_SHUFFLE", Value(false)}},
                              {{"BLOCK_THREADS", Value(32)}, {"VEC", Value(2)}}});
  auto results = evaluator.evaluate(batch);
  for (std::size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(batch[i].to_string());
    EXPECT_EQ(results[i].outcome, Outcome::ok) << results[i].detail;
    EXPECT_GT(results[i].time_ms, 0.0);
    EXPECT_LT(results[i].max_rel_error, 1e-5);
    EXPECT_GE(results[i].repetitions, spec.timing.min_reps);
  }
}

TEST(CudaGpu, MatmulConfigsIncludingLargeDynamicSharedMemoryAreCorrect) {
  KernelSpec spec = load_spec(example("tiled_matmul.json"));
  // Sizes that no tile divides: the edges are checked too.
  CudaEvaluator evaluator(spec, Problem::parse("m=1000,n=700,k=300"), options());
  // The last needs (128 + 128) * 64 * 4 = 64 KiB of dynamic shared memory: an opt-in.
  auto batch = configs(spec, {{},
                              {{"TILE_M", Value(32)},
                               {"TILE_N", Value(128)},
                               {"THREAD_M", Value(1)},
                               {"THREAD_N", Value(4)}},
                              {{"TILE_M", Value(128)},
                               {"TILE_N", Value(128)},
                               {"TILE_K", Value(64)},
                               {"THREAD_M", Value(8)},
                               {"THREAD_N", Value(8)}}});
  auto results = evaluator.evaluate(batch);
  for (std::size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(batch[i].to_string());
    EXPECT_EQ(results[i].outcome, Outcome::ok) << results[i].detail;
    EXPECT_LT(results[i].max_rel_error, 1e-5);
  }
}

TEST(CudaGpu, ClusterDimensionsReachTheKernel) {
  cuda::CubinCompiler::Options compile_options;
  compile_options.cache_dir = cache_dir();
  cuda::CubinCompiler compiler(compile_options);
  cuda::CompileRequest request;
  request.source = R"(
    extern "C" __global__ void cluster_rank(unsigned* out) {
      unsigned rank;
      asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
      if (threadIdx.x == 0) out[blockIdx.x] = rank;
    }
    extern "C" __global__ void expected_rank(unsigned* out) {
      if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x % 4;
    })";
  auto compiled = compiler.compile(request);
  ASSERT_TRUE(compiled.ok()) << compiled.log;

  cuda::DeviceWorkerPool pool({});
  cuda::protocol::MeasureRequest measure;
  measure.candidate = {compiled.cubin.string(), "cluster_rank", {64, 1, 1}, {32, 1, 1}, {4, 1, 1}};
  measure.reference = {compiled.cubin.string(), "expected_rank", {64, 1, 1}, {32, 1, 1}};
  cuda::protocol::Arg out;
  out.dtype = cuda::protocol::Dtype::u32;
  out.count = 64;
  out.role = cuda::protocol::Role::output;
  measure.args = {out};
  auto result = pool.measure(0, measure);
  EXPECT_EQ(result.measurement.outcome, Outcome::ok) << result.measurement.detail;
  EXPECT_EQ(result.measurement.max_rel_error, 0.0);

  measure.candidate.cluster = {3, 1, 1};  // 64 blocks do not split into clusters of 3
  EXPECT_EQ(pool.measure(0, measure).measurement.outcome, Outcome::launch_error);
}

TEST(CudaGpu, FaultSpecEveryFailureClassified) {
  KernelSpec spec = load_spec(example("faults.json"));
  CudaEvaluator evaluator(spec, {}, options());
  std::vector<PartialConfig> partials;
  // Correct configs before and after the faults: the faults must not disturb them.
  for (int block : {64, 256}) partials.push_back({{"MODE", Value(0)}, {"BLOCK", Value(block)}});
  for (int mode = 1; mode <= 9; ++mode) {
    for (int block : {64, 256, 2048}) {
      partials.push_back({{"MODE", Value(mode)}, {"BLOCK", Value(block)}});
    }
  }
  partials.push_back({{"MODE", Value(0)}, {"BLOCK", Value(2048)}});
  partials.push_back({{"MODE", Value(0)}, {"BLOCK", Value(64)}});
  auto batch = configs(spec, partials);
  auto results = evaluator.evaluate(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    SCOPED_TRACE(batch[i].to_string());
    EXPECT_EQ(results[i].outcome, examples::expected_fault(batch[i])) << results[i].detail;
  }
  EXPECT_TRUE(results.back().ok()) << "a correct config measured after every fault";
  EXPECT_NEAR(results.back().time_ms, results.front().time_ms, 0.5 * results.front().time_ms);
  EXPECT_GE(evaluator.stats().worker_starts, 7);  // the first, four crashes, two hangs
}

TEST(CudaGpu, SameConfigInSeparateTunesAgreesWithinTwoPercent) {
  KernelSpec spec = load_spec(example("tiled_matmul.json"));
  Config config = spec.tuning->space.default_config();
  std::vector<double> medians;
  for (int tune = 0; tune < 10; ++tune) {
    CudaEvaluator evaluator(spec, {}, options());
    std::vector<Config> batch{config};
    auto result = evaluator.evaluate(batch).front();
    ASSERT_EQ(result.outcome, Outcome::ok) << result.detail;
    medians.push_back(result.time_ms);
  }
  auto [low, high] = std::minmax_element(medians.begin(), medians.end());
  EXPECT_GT(*low, 0.05) << "the check is meant for kernels over 50 us";
  EXPECT_LT(*high / *low, 1.02) << "min " << *low << " ms, max " << *high << " ms";
}

TEST(CudaGpu, SpecRoundsWarmUpOnTheWorkerAndTimeEveryConfigInEveryRound) {
  KernelSpec spec = load_spec(example("reduction.json"));
  CudaEvaluator evaluator(spec, {}, options());
  auto batch = configs(spec, {{},
                              {{"VEC", Value(4)}, {"UNROLL", Value(4)}},
                              {{"BLOCK_THREADS", Value(32)}, {"VEC", Value(2)}}});
  const PairedRounds rounds = evaluator.time_rounds(batch, 15);
  for (const Measurement& check : rounds.checks) EXPECT_TRUE(check.ok()) << check.detail;
  EXPECT_GE(rounds.warmup_rounds, 3);  // the worker's steady-state loop ran
  EXPECT_LE(rounds.warmup_rounds, 40);
  ASSERT_EQ(rounds.rounds.size(), 15U);
  for (const TimedRound& round : rounds.rounds) {
    for (double t : round.times_ms) EXPECT_GT(t, 0.0);
    EXPECT_TRUE(std::isnan(round.reference_ms));
    EXPECT_GT(round.sm_clock_mhz, 0.0);
  }
}

// A kernel as its author wrote it (issue 32): its own parameters (a pointer, then an int), and
// two __constant__ symbols, one filled from the buffer the reference reads, one from values.
// Equal outputs only when both constants arrived in the candidate's module.
TEST(CudaGpu, ConstantsAndOwnParametersReachTheKernel) {
  const auto dir = std::filesystem::temp_directory_path() / "cutune-gpu-constants";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "constants.cu") << R"cu(
__constant__ float weights[9];
__constant__ int offset[1];
__global__ void from_constants(float* out, const float* w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = weights[(i + offset[0]) % 9];
}
__global__ void from_buffer(float* out, const float* w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = w[(i + 3) % 9];
}
)cu";
  std::ofstream(dir / "constants.json") << R"js({
  "name": "constants", "backend": "cuda", "source": "constants.cu", "entry": "from_constants",
  "problem": {"n": 100000},
  "knobs": [{"name": "block_size_x", "kind": "enum", "choices": [64, 256]}],
  "buffers": [{"name": "out", "type": "f32", "size": "n", "role": "output"},
              {"name": "w", "type": "f32", "size": 9}],
  "arguments": [{"buffer": "out"}, {"buffer": "w"}, {"name": "n", "type": "i32", "value": "n"}],
  "constants": [{"symbol": "weights", "buffer": "w"},
                {"symbol": "offset", "type": "i32", "values": [3]}],
  "check": {"entry": "from_buffer", "tolerance": 0},
  "compile": {"compiler": "nvrtc"},
  "launch": {"problem_size": ["n"], "grid_div": {"x": ["block_size_x"]}, "block": ["block_size_x"]}
})js";
  const KernelSpec spec = load_spec(dir / "constants.json");
  CudaEvaluator evaluator(spec, {}, options());
  const auto batch = configs(spec, {{{"block_size_x", Value(64)}}, {{"block_size_x", Value(256)}}});
  const auto results = evaluator.evaluate(batch);
  for (std::size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(batch[i].to_string());
    EXPECT_EQ(results[i].outcome, Outcome::ok) << results[i].detail;
    EXPECT_EQ(results[i].max_rel_error, 0.0);
  }
  std::filesystem::remove_all(dir);
}

// An in-place kernel (an inout buffer) in a spec without a check: each launch starts from the
// seeded values, and each config's result is compared with the default config's; the one config
// that leaves the last element alone fails that check.
TEST(CudaGpu, InoutBufferIsComparedWithTheDefaultConfigsResult) {
  const auto dir = std::filesystem::temp_directory_path() / "cutune-gpu-inout";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "twice.cu") << R"cu(
__global__ void twice(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - (block_size_x == 128 ? 1 : 0)) x[i] = 2 * x[i] + 1;
}
)cu";
  std::ofstream(dir / "twice.json") << R"js({
  "name": "twice", "backend": "cuda", "source": "twice.cu", "entry": "twice",
  "problem": {"n": 100000},
  "knobs": [{"name": "block_size_x", "kind": "enum", "choices": [64, 128, 256]}],
  "buffers": [{"name": "x", "type": "f32", "size": "n", "role": "inout"}],
  "arguments": [{"buffer": "x"}, {"name": "n", "type": "i32", "value": "n"}],
  "compile": {"compiler": "nvrtc"},
  "launch": {"problem_size": ["n"], "grid_div": {"x": ["block_size_x"]}, "block": ["block_size_x"]}
})js";
  const KernelSpec spec = load_spec(dir / "twice.json");
  CudaEvaluator evaluator(spec, {}, options());
  const auto batch = configs(spec, {{{"block_size_x", Value(64)}},
                                    {{"block_size_x", Value(128)}},
                                    {{"block_size_x", Value(256)}}});
  const auto results = evaluator.evaluate(batch);
  ASSERT_EQ(results.size(), 3u);
  for (std::size_t i : {0u, 2u}) {
    SCOPED_TRACE(batch[i].to_string());
    EXPECT_EQ(results[i].outcome, Outcome::ok) << results[i].detail;
    EXPECT_EQ(results[i].max_rel_error, 0.0);
  }
  EXPECT_EQ(results[1].outcome, Outcome::wrong_result);
  EXPECT_NE(results[1].detail.find("argument 0 (inout) differs from the default config"),
            std::string::npos)
      << results[1].detail;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cutune
