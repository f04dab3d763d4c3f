// CudaEvaluator hands the compiler the knob definitions of the CPU backend (knob_definitions,
// cutune/spec.hpp): K=value, K_text=1 for a string enum, K={..} and K_i for a list. The kernel
// below compiles only when they arrive as documented (its default config does not, so nothing is
// compared with it: its buffer is scratch); the stand-in worker plays the device.
#include <gtest/gtest.h>

#include <fstream>

#include "cutune/cuda.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"
#include "test_support.hpp"

namespace cutune {
namespace {

using cuda::testing::TempDir;

constexpr const char* kernel_source = R"cu(
#if !defined(MODE_fast) || MODE_fast != 1
#error "MODE_fast is not defined to 1"
#endif
#if ORDER_0 != 2 || ORDER_1 != 0 || ORDER_2 != 1
#error "ORDER_i do not follow the permutation"
#endif
#if WIDE != 1 || TILE != 64
#error "a boolean or an integer knob is not its value"
#endif
__device__ const int order[] = ORDER;
__device__ float scale = SCALE;
extern "C" __global__ void kernel(float* out, long long n) {
  if (threadIdx.x < n) out[threadIdx.x] = order[threadIdx.x % 3] * scale;
}
)cu";

constexpr const char* spec_text = R"js({
  "name": "defines", "backend": "cuda", "source": "kernel.cu", "entry": "kernel",
  "problem": {"n": 32},
  "knobs": [
    {"name": "MODE", "kind": "enum", "choices": ["slow", "fast"], "default": "fast"},
    {"name": "ORDER", "kind": "permutation", "size": 3},
    {"name": "WIDE", "kind": "boolean", "default": true},
    {"name": "TILE", "kind": "power_of_two", "min": 16, "max": 128, "default": 64},
    {"name": "SCALE", "kind": "enum", "choices": [0.5, 2.25], "default": 2.25}
  ],
  "buffers": [{"name": "out", "type": "f32", "size": "n", "role": "scratch"}],
  "compile": {"compiler": "nvrtc"},
  "launch": {"grid": [1], "block": [32]}
})js";

TEST(CudaEvaluatorDefines, KnobsReachTheCompilerAsTheCpuBackendDefinesThem) {
  TempDir dir("defines");
  const KernelSpec spec = cuda::testing::written_spec(dir, "kernel.cu", kernel_source, spec_text);
  CudaEvaluator evaluator(spec, {}, cuda::testing::stand_in_options(dir));
  EXPECT_EQ(evaluator.device().cc_major, 9);  // the stand-in worker's report

  const auto& space = spec.tuning->space;
  const std::vector<Config> batch = {
      space.complete({{"ORDER", Value::List{2, 0, 1}}}),
      space.complete({{"ORDER", Value::List{2, 0, 1}}, {"MODE", Value("slow")}}),
      space.complete({{"ORDER", Value::List{0, 1, 2}}}),
      space.complete({{"ORDER", Value::List{2, 0, 1}}, {"TILE", 32}})};
  const auto results = evaluator.compile(batch);
  ASSERT_EQ(results.size(), batch.size());
  EXPECT_TRUE(results[0].ok()) << results[0].log;
  EXPECT_FALSE(results[1].ok());
  EXPECT_NE(results[1].log.find("MODE_fast is not defined"), std::string::npos) << results[1].log;
  EXPECT_FALSE(results[2].ok());
  EXPECT_NE(results[2].log.find("ORDER_i do not follow"), std::string::npos) << results[2].log;
  EXPECT_FALSE(results[3].ok());
  EXPECT_NE(results[3].log.find("not its value"), std::string::npos) << results[3].log;
}

}  // namespace
}  // namespace cutune
