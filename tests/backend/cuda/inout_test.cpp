// The CUDA backend's side of an inout buffer in a spec without a check: the worker is asked to
// fill it and compare it (role "inout"), against the default config's own launch of the kernel,
// and told what that reference is for a wrong result's detail. The stand-in worker echoes the
// request; what the device does with it only a GPU shows (tests/gpu).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/cuda.hpp"
#include "cutune/spec.hpp"
#include "test_support.hpp"

namespace cutune {
namespace {

using json = nlohmann::json;

constexpr const char* kernel_source = R"cu(
extern "C" __global__ void echo_double(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2 * x[i];
}
)cu";

constexpr const char* spec_text = R"js({
  "name": "double", "backend": "cuda", "source": "double.cu", "entry": "echo_double",
  "problem": {"n": 1000},
  "knobs": [{"name": "block_size_x", "kind": "enum", "choices": [32, 64, 128]}],
  "buffers": [{"name": "x", "type": "f32", "size": "n", "role": "inout", "fill": "zero"}],
  "arguments": [{"buffer": "x"}, {"name": "n", "type": "i32", "value": "n"}],
  "compile": {"compiler": "nvrtc"},
  "launch": {"problem_size": ["n"], "grid_div": {"x": ["block_size_x"]}, "block": ["block_size_x"]}
})js";

TEST(CudaInout, TheWorkerComparesTheInoutWithTheDefaultConfigsLaunch) {
  cuda::testing::TempDir dir("inout");
  const KernelSpec spec = cuda::testing::written_spec(dir, "double.cu", kernel_source, spec_text);
  CudaEvaluator evaluator(spec, {}, cuda::testing::stand_in_options(dir));
  const Config config = spec.tuning->space.complete({{"block_size_x", 128}});
  const auto measured = evaluator.evaluate(std::span<const Config>(&config, 1));
  ASSERT_EQ(measured.size(), 1u);
  ASSERT_EQ(measured[0].outcome, Outcome::ok) << measured[0].detail;
  const json request = json::parse(measured[0].detail);
  EXPECT_EQ(request.at("args").at(0).at("role"), "inout");
  EXPECT_EQ(request.at("args").at(0).at("fill"), "zero");
  EXPECT_EQ(request.at("reference_name"), "the default config");
  // The reference is the kernel itself at the default config: ceil(1000 / 32) blocks of 32.
  EXPECT_EQ(request.at("reference").at("kernel"), "echo_double");
  EXPECT_EQ(request.at("reference").at("grid"), json({32, 1, 1}));
  EXPECT_EQ(request.at("candidate").at("grid"), json({8, 1, 1}));
}

}  // namespace
}  // namespace cutune
