// The GEMM evaluator's CPU-side parts with the real components: nvcc compiles configs of the GEMM
// space to cubins through the CUDA backend's compile pool and disk cache (no GPU needed), and the
// GEMM's own request survives the worker's JSON protocol. GemmEvaluatorGpu needs an sm_90 GPU
// (label gpu).
#include "gemm/gemm_evaluator.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cutune/cuda/worker_protocol.hpp"
#include "gemm/gemm_protocol.hpp"
#include "gemm/gemm_space.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() / ("cutune_gemm_eval_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

#ifndef CUTUNE_GEMM_GPU_TESTS

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(GemmRequestProtocol, RoundTripsThroughJson) {
  cuda::protocol::GemmRequest request;
  request.id = 42;
  request.cubin = "/cache/abc.cubin";
  request.config = "64x256x64_s5_c1x2_ping_rm2_k2";
  request.m = 128;
  request.n = 8192;
  request.k = 8192;
  request.dtype = "fp16";
  request.b_layout = "n_by_k";
  request.seed = 7;
  request.tolerance = 0.01;
  request.time = false;
  request.cublas_only = true;
  request.timing.budget_ms = 250;
  request.timing.max_reps = 2500;
  // As the pool sends it: the generic envelope, the family's request inside, unread.
  const cuda::protocol::FamilyRequest sent = cuda::protocol::family_request(request);
  EXPECT_EQ(sent.family, "gemm");
  EXPECT_FALSE(sent.time);
  EXPECT_DOUBLE_EQ(sent.timing.budget_ms, 250);
  const nlohmann::json message = {
      {"op", "family"}, {"family", sent.family}, {"request", sent.request}};
  const auto back =
      nlohmann::json::parse(message.dump()).at("request").get<cuda::protocol::GemmRequest>();
  EXPECT_EQ(back.id, 42u);
  EXPECT_EQ(back.cubin, request.cubin);
  EXPECT_EQ(back.config, request.config);
  EXPECT_EQ(back.m, 128);
  EXPECT_EQ(back.n, 8192);
  EXPECT_EQ(back.k, 8192);
  EXPECT_EQ(back.dtype, "fp16");
  EXPECT_EQ(back.b_layout, "n_by_k");
  EXPECT_EQ(back.seed, 7u);
  EXPECT_DOUBLE_EQ(back.tolerance, 0.01);
  EXPECT_FALSE(back.time);
  EXPECT_TRUE(back.cublas_only);
  EXPECT_DOUBLE_EQ(back.timing.budget_ms, 250);
  EXPECT_EQ(back.timing.max_reps, 2500);
}

// The final tournament's paired rounds travel in the same request and reply.
TEST(GemmRequestProtocol, PairedRoundsRoundTripThroughJson) {
  cuda::protocol::GemmRequest request;
  request.rounds = 15;
  request.reps = 3;
  request.candidates = {{"/cache/a.cubin", "128x256x64_s4_c1x1_coop_rn2_k1"},
                        {"/cache/b.cubin", "64x256x64_s5_c1x2_ping_rm2_k2"}};
  const auto back =
      nlohmann::json::parse(nlohmann::json(request).dump()).get<cuda::protocol::GemmRequest>();
  EXPECT_EQ(back.rounds, 15);
  EXPECT_EQ(back.reps, 3);
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_EQ(back.candidates[1].cubin, "/cache/b.cubin");
  EXPECT_EQ(back.candidates[1].config, "64x256x64_s5_c1x2_ping_rm2_k2");

  cuda::protocol::MeasureReply reply;
  reply.candidate_outcomes = {"ok", "wrong_result"};
  reply.candidate_details = {"", "D: relative error"};
  reply.round_ms = {{0.11, -1}, {0.12, -1}};
  reply.round_reference_ms = {0.1, 0.1};
  reply.round_sm_clock_mhz = {1980, 1965};
  reply.round_power_w = {650.5, 0};
  reply.warmup_rounds = 4;
  const auto answer =
      nlohmann::json::parse(nlohmann::json(reply).dump()).get<cuda::protocol::MeasureReply>();
  EXPECT_EQ(answer.candidate_outcomes, reply.candidate_outcomes);
  EXPECT_EQ(answer.round_ms, reply.round_ms);
  EXPECT_EQ(answer.round_sm_clock_mhz[1], 1965);
  EXPECT_DOUBLE_EQ(answer.round_power_w[0], 650.5);
  EXPECT_EQ(answer.warmup_rounds, 4);
}

TEST(GemmRequestProtocol, MissingFieldsTakeTheirDefaults) {
  const auto request = nlohmann::json::parse(R"({"id": 3, "cubin": "x.cubin", "m": 64})")
                           .get<cuda::protocol::GemmRequest>();
  EXPECT_EQ(request.m, 64);
  EXPECT_EQ(request.dtype, "bf16");
  EXPECT_EQ(request.b_layout, "k_by_n");
  EXPECT_TRUE(request.time);
  EXPECT_FALSE(request.cublas_only);
  EXPECT_LT(request.tolerance, 0);
}

TEST(GemmCompiler, RejectsAProblemTheFamilyCannotRun) {
  try {
    GemmCompiler compiler(gemm_problem(256, 256, 1001));
    FAIL() << "k = 1001 was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("k = 1001"), std::string::npos) << error.what();
  }
  EXPECT_THROW(GemmCompiler(gemm_problem(256, 256, 256, "fp8")), std::invalid_argument);
}

TEST(GemmCompiler, RequestCarriesTheConfigsDefinesAndTheCutlassHeaders) {
  TempDir cache;
  GemmCompileOptions options;
  options.cache_dir = cache.path();
  GemmCompiler compiler(gemm_problem(2048, 4096, 4096), options);
  const auto config = gemm::parse_config("64x256x64_s5_c1x2_ping_rm2_k2");
  const cuda::CompileRequest request = compiler.request(config);
  EXPECT_EQ(request.compiler, cuda::CompilerKind::nvcc);
  EXPECT_EQ(request.arch, "sm_90a");
  const std::pair<std::string, std::string> tile_m{"CUTUNE_TILE_M", "64"};
  const std::pair<std::string, std::string> split{"CUTUNE_SPLIT_K", "2"};
  EXPECT_NE(std::find(request.defines.begin(), request.defines.end(), tile_m),
            request.defines.end());
  EXPECT_NE(std::find(request.defines.begin(), request.defines.end(), split),
            request.defines.end());
  ASSERT_EQ(request.include_dirs.size(), 1u);
  EXPECT_TRUE(fs::exists(request.include_dirs.front() / "cute"));
  EXPECT_EQ(compiler.source_version().size(), 16u);
}

// Real nvcc on the real kernel source: the default config of the space and a seed-only
// fast_launch config, both to cubins holding the family's entry points; the second request for
// the same config is served from the disk cache.
TEST(GemmCompiler, CompilesConfigsToCubinsAndCachesThem) {
  TempDir cache;
  GemmCompileOptions options;
  options.cache_dir = cache.path();
  const Problem problem = gemm_problem(2048, 4096, 4096);
  GemmCompiler compiler(problem, options);
  const auto space = make_gemm_space();
  const Config plain = default_config(*space, problem, Device::h200());
  Config other = space->space.default_config();
  other.set(space->space.index_of("tile_m"), 128);
  other.set(space->space.index_of("tile_n"), 128);
  other.set(space->space.index_of("split_k"), 2);
  auto first = compiler.submit(plain);
  auto second = compiler.submit(other);
  for (auto* future : {&first, &second}) {
    const cuda::CompileResult& result = future->get();
    ASSERT_TRUE(result.ok()) << result.log;
    EXPECT_FALSE(result.cached);
    const std::string cubin = file_bytes(result.cubin);
    EXPECT_NE(cubin.find("cutune_gemm"), std::string::npos);
    EXPECT_NE(cubin.find("cutune_gemm_splitk_reduce"), std::string::npos);
  }
  EXPECT_NE(first.get().cubin, second.get().cubin);
  const cuda::CompileResult again = compiler.submit(plain).get();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.cubin, first.get().cubin);
  EXPECT_NE(compiler.toolchain().find("nvcc"), std::string::npos);
}

#else

// On an sm_90 GPU only: one evaluator on a small problem, the family's default config and one
// that breaks the kernel's rules (rejected before compiling).
class GemmEvaluatorGpu : public ::testing::Test {
 protected:
  static GemmEvaluatorOptions options(const TempDir& cache) {
    GemmEvaluatorOptions o;
    o.compile.cache_dir = cache.path();
    o.budget_ms = 10;
    return o;
  }
  std::vector<Config> plain_and_too_deep() const {
    Config too_deep = space_->space.default_config();
    too_deep.set(space_->space.index_of("tile_n"), 256);
    too_deep.set(space_->space.index_of("stages"), 8);
    return {default_config(*space_, problem_, evaluator_.device()), too_deep};
  }
  TempDir cache_;
  const Problem problem_ = gemm_problem(512, 1024, 1024);
  GemmEvaluator evaluator_{problem_, options(cache_)};
  const std::unique_ptr<TuningSpace> space_ = make_gemm_space();
};

// The default config checks against cuBLASLt and is timed, and cuBLASLt itself is timed.
TEST_F(GemmEvaluatorGpu, MeasuresConfigsAndCublasOnTheDevice) {
  const auto results = evaluator_.evaluate(plain_and_too_deep());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok()) << results[0].detail;
  EXPECT_GT(results[0].time_ms, 0);
  EXPECT_LE(results[0].max_rel_error, 2e-2);
  EXPECT_EQ(results[1].outcome, Outcome::invalid_config) << results[1].detail;
  const Measurement cublas = evaluator_.time_cublas(1);
  EXPECT_TRUE(cublas.ok()) << cublas.detail;
  EXPECT_GT(cublas.time_ms, 0);
  EXPECT_NE(evaluator_.device_name().find("sm_90"), std::string::npos);
}

// The tournament's paired rounds time every finalist and cuBLASLt in each round, after a
// warm-up, with the SM clock read per round.
TEST_F(GemmEvaluatorGpu, TimesFinalistsAndCublasInPairedRounds) {
  const PairedRounds paired = evaluator_.time_rounds(plain_and_too_deep(), 6);
  ASSERT_EQ(paired.checks.size(), 2u);
  EXPECT_TRUE(paired.checks[0].ok()) << paired.checks[0].detail;
  EXPECT_EQ(paired.checks[1].outcome, Outcome::invalid_config);
  EXPECT_GE(paired.warmup_rounds, 3);
  ASSERT_EQ(paired.rounds.size(), 6u);
  for (const TimedRound& round : paired.rounds) {
    EXPECT_GT(round.times_ms[0], 0);
    EXPECT_TRUE(std::isnan(round.times_ms[1]));
    EXPECT_GT(round.reference_ms, 0);
    EXPECT_GT(round.sm_clock_mhz, 0);  // NVML comes with the driver
  }
}

#endif  // CUTUNE_GEMM_GPU_TESTS

}  // namespace
}  // namespace cutune
