// A CUDA kernel as its author wrote it (issue 32): the spec's `arguments` reach the worker in
// the kernel's order and types, a __constant__ symbol with the buffer that fills it (a buffer
// the kernel never sees travels hidden), the grid from Kernel Tuner's grid_div, and a reference
// kernel with its own config and launch. NVRTC compiles the real kernels (non-extern "C" names
// too); the stand-in worker echoes the request it got. Then a tune script imported as Kernel
// Tuner users bring them.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cutune/cuda.hpp"
#include "cutune/kernel_tuner.hpp"
#include "cutune/spec.hpp"
#include "test_support.hpp"

namespace cutune {
namespace {

using cuda::testing::TempDir;
using json = nlohmann::json;

constexpr const char* kernel_source = R"cu(
__constant__ float weights[9];
__global__ void echo_blur(float* out, const float* in, int width, int height, float scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * block_size_y * tile_size_y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = scale * weights[y % 9] * in[y * width + x];
}
__global__ void echo_naive(float* out, const float* in, int width, int height, float scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = scale * weights[y % 9] * in[y * width + x];
}
)cu";

constexpr const char* spec_text = R"js({
  "name": "blur", "backend": "cuda", "source": "blur.cu", "entry": "echo_blur",
  "problem": {"width": 1000, "height": 600},
  "knobs": [
    {"name": "block_size_x", "kind": "enum", "choices": [32, 64]},
    {"name": "block_size_y", "kind": "enum", "choices": [4, 8]},
    {"name": "tile_size_y", "kind": "enum", "choices": [1, 2]}
  ],
  "buffers": [
    {"name": "out", "type": "f32", "size": "width * height", "role": "output"},
    {"name": "in", "type": "f32", "size": "width * height"},
    {"name": "w", "type": "f32", "size": 9}
  ],
  "arguments": [
    {"buffer": "out"}, {"buffer": "in"},
    {"name": "width", "type": "i32", "value": "width"},
    {"name": "height", "type": "i32", "value": "height"},
    {"name": "scale", "type": "f32", "value": 0.25}
  ],
  "constants": [{"symbol": "weights", "buffer": "w"}, {"symbol": "unused", "type": "u8", "values": [1, 2]}],
  "check": {"entry": "echo_naive", "config": {"block_size_x": 32, "block_size_y": 8},
            "launch": {"problem_size": ["width", "height"],
                       "grid_div": {"x": ["block_size_x"], "y": ["block_size_y"]},
                       "block": ["block_size_x", "block_size_y"]}},
  "compile": {"compiler": "nvrtc"},
  "launch": {"problem_size": ["width", "height"],
             "grid_div": {"x": ["block_size_x"], "y": ["block_size_y", "tile_size_y"]},
             "block": ["block_size_x", "block_size_y"]}
})js";

TEST(CudaOwnArguments, TheWorkerGetsTheKernelsParametersConstantsAndReferenceLaunch) {
  TempDir dir("own-arguments");
  const KernelSpec spec = cuda::testing::written_spec(dir, "blur.cu", kernel_source, spec_text);
  CudaEvaluator evaluator(spec, {}, cuda::testing::stand_in_options(dir));
  const Config config =
      spec.tuning->space.complete({{"block_size_x", 64}, {"block_size_y", 4}, {"tile_size_y", 2}});
  const auto measured = evaluator.evaluate(std::span<const Config>(&config, 1));
  ASSERT_EQ(measured.size(), 1u);
  ASSERT_EQ(measured[0].outcome, Outcome::ok) << measured[0].detail;
  const json request = json::parse(measured[0].detail);

  const json& args = request.at("args");
  ASSERT_EQ(args.size(), 6u);  // five parameters, then the constant's buffer, hidden
  EXPECT_TRUE(args[0].at("is_buffer"));
  EXPECT_EQ(args[0].at("role"), "output");
  EXPECT_EQ(args[0].at("count"), 600000);
  EXPECT_EQ(args[1].at("role"), "input");
  EXPECT_EQ(args[2].at("dtype"), "i32");
  EXPECT_EQ(args[2].at("value"), 1000);
  EXPECT_FALSE(args[2].at("is_buffer"));
  EXPECT_EQ(args[3].at("value"), 600);
  EXPECT_EQ(args[4].at("dtype"), "f32");
  EXPECT_EQ(args[4].at("value"), 0.25);
  EXPECT_TRUE(args[5].at("hidden"));
  EXPECT_EQ(args[5].at("count"), 9);
  EXPECT_EQ(request.at("constants"), json::parse(R"([
      {"symbol": "weights", "arg": 5, "dtype": "f32", "values": []},
      {"symbol": "unused", "arg": -1, "dtype": "u8", "values": [1.0, 2.0]}])"));
  // The candidate's grid: ceil(1000 / 64), ceil(600 / (4 * 2)); the reference's by its own.
  EXPECT_EQ(request.at("candidate").at("grid"), json({16, 75, 1}));
  EXPECT_EQ(request.at("candidate").at("block"), json({64, 4, 1}));
  EXPECT_EQ(request.at("reference").at("grid"), json({32, 75, 1}));
  EXPECT_EQ(request.at("reference").at("block"), json({32, 8, 1}));
  // NVRTC lowered the non-extern "C" names.
  EXPECT_NE(request.at("candidate").at("kernel").get<std::string>().find("echo_blur"),
            std::string::npos);
  EXPECT_NE(request.at("reference").at("kernel").get<std::string>().find("echo_naive"),
            std::string::npos);
}

// Kernel Tuner's way in (issue 32): the CUDA tune script of tests/kt/data, imported by import-kt,
// compiles for the GPU with nvcc and with NVRTC (the compiler an import names), reference and
// candidates alike.
TEST(CudaOwnArguments, AnImportedTuneScriptCompilesWithNvccAndNvrtc) {
  const std::filesystem::path script =
      std::filesystem::path(CUTUNE_KT_TEST_DATA) / "cuda_blur/tune_blur.py";
  for (const char* compiler : {"nvcc", "nvrtc"}) {
    TempDir dir(std::string("imported-") + compiler);
    nlohmann::ordered_json imported =
        spec_from_kt_script(cuda::testing::read_text(script), {}, script.string()).spec;
    ASSERT_EQ(imported.at("compile").at("compiler"), "nvcc");  // lang "CUDA": PyCUDA's
    imported["compile"]["compiler"] = compiler;
    std::ofstream(dir.path() / "spec.json") << imported.dump(2);
    const KernelSpec spec = load_spec(dir.path() / "spec.json");
    // The constructor compiles the run_kernel reference (blur_naive) first.
    CudaEvaluator evaluator(spec, {}, cuda::testing::stand_in_options(dir));
    const auto& space = spec.tuning->space;
    const std::vector<Config> batch = {
        space.default_config(),
        space.complete({{"block_size_x", 128}, {"block_size_y", 8}, {"tile_size_y", 4}})};
    for (const auto& result : evaluator.compile(batch)) {
      EXPECT_TRUE(result.ok()) << compiler << ": " << result.log;
    }
  }
}

}  // namespace
}  // namespace cutune
