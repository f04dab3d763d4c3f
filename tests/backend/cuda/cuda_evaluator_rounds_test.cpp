// CudaEvaluator::time_rounds: every config compiled (NVRTC, for real), its launch shape built from
// the spec, and one paired-rounds request sent to a worker. There is no GPU here, so the stand-in
// worker (fake_worker.cpp) plays the device: it speaks the real protocol and times a candidate
// that passes its check as block.x / 32 ms. What is tested is the tuner's side: which configs are
// sent, with which launch, and how the reply lands in PairedRounds and the tournament. The worker's
// own rounds (run_paired_rounds) run on the H200 in tests/gpu.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cutune/cuda.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"
#include "cutune/tournament.hpp"
#include "test_support.hpp"

namespace cutune {
namespace {

using cuda::testing::TempDir;

// THREADS = 128 does not compile: that config's failure must stay its own.
constexpr const char* kernel_source = R"cu(
#if THREADS == 128
#error "no 128-thread variant"
#endif
extern "C" __global__ void ok(float* out, long long n) {
  if (threadIdx.x < n) out[threadIdx.x] = THREADS;
}
)cu";

constexpr const char* spec_text = R"js({
  "name": "rounds", "backend": "cuda", "source": "kernel.cu", "entry": "ok",
  "problem": {"n": 32},
  "knobs": [{"name": "THREADS", "kind": "enum", "choices": [32, 64, 128], "default": 64}],
  "buffers": [{"name": "out", "type": "f32", "size": "n", "role": "output"}],
  "compile": {"compiler": "nvrtc"},
  "launch": {"grid": [1], "block": ["THREADS"]}
})js";

class CudaEvaluatorRounds : public ::testing::Test {
 protected:
  CudaEvaluatorRounds() : dir_("rounds") {
    std::ofstream(dir_.path() / "kernel.cu") << kernel_source;
    std::ofstream(dir_.path() / "spec.json") << spec_text;
    spec_ = load_spec(dir_.path() / "spec.json");
  }
  Config threads(int value) const {
    return spec_.tuning->space.from_json(nlohmann::json{{"THREADS", value}});
  }
  CudaOptions options() const {
    CudaOptions o;
    o.cache_dir = dir_.path() / "cache";
    o.worker = CUTUNE_FAKE_WORKER;
    return o;
  }

  TempDir dir_;
  KernelSpec spec_;
};

TEST_F(CudaEvaluatorRounds, EveryConfigIsTimedInTheWorkersRoundsAndFailuresStayTheirOwn) {
  CudaEvaluator evaluator(spec_, {}, options());
  const std::vector<Config> configs{threads(64), threads(32), threads(128)};
  const PairedRounds rounds = evaluator.time_rounds(configs, 7);
  ASSERT_EQ(rounds.checks.size(), 3U);
  EXPECT_TRUE(rounds.checks[0].ok()) << rounds.checks[0].detail;
  EXPECT_TRUE(rounds.checks[1].ok()) << rounds.checks[1].detail;
  EXPECT_EQ(rounds.checks[2].outcome, Outcome::compile_error);
  EXPECT_EQ(rounds.warmup_rounds, 3);  // the worker's, not the evaluator's
  EXPECT_NE(rounds.steady_state.find("first config"), std::string::npos) << rounds.steady_state;
  ASSERT_EQ(rounds.rounds.size(), 7U);
  for (const TimedRound& round : rounds.rounds) {
    EXPECT_DOUBLE_EQ(round.times_ms.at(0), 2.0);  // each config's own launch shape reached it
    EXPECT_DOUBLE_EQ(round.times_ms.at(1), 1.0);
    EXPECT_TRUE(std::isnan(round.times_ms.at(2)));
    EXPECT_TRUE(std::isnan(round.reference_ms));  // a spec's rounds time no reference
    EXPECT_DOUBLE_EQ(round.sm_clock_mhz, 1980.0);
  }
}

TEST_F(CudaEvaluatorRounds, TheTournamentCrownsTheFasterConfigFromTheWorkersRounds) {
  CudaEvaluator evaluator(spec_, {}, options());
  std::vector<Finalist> finalists{{.config = threads(64), .role = FinalistRole::default_config},
                                  {.config = threads(32), .role = FinalistRole::search},
                                  {.config = threads(128), .role = FinalistRole::search}};
  const TournamentResult result = run_tournament(evaluator, finalists, TournamentOptions{});
  EXPECT_EQ(result.winner, 1U);
  EXPECT_DOUBLE_EQ(result.speedup().median, 2.0);
  EXPECT_EQ(result.finalists[2].measurement.outcome, Outcome::compile_error);
  EXPECT_EQ(result.warmup_rounds, 3);
}

}  // namespace
}  // namespace cutune
