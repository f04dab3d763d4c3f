// Compiles device/hopper_gemm_fp8.cu with the real nvcc for sm_90a through the family's own
// compiler (as a tune would), for the default of each scaling and each kernel schedule, and loads
// every library: the four entry points of gemm_fp8_abi.hpp must be there. No GPU is needed (the
// library's CUDA runtime looks for the driver only when first called).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cutune/heuristics.hpp"
#include "gemm_fp8/gemm_fp8_abi.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"
#include "gemm_fp8/gemm_fp8_space.hpp"

namespace cutune {
namespace {

using gemm_fp8::Format;
using gemm_fp8::Fp8Config;
using gemm_fp8::Scaling;
using gemm_fp8::Schedule;

void compiles_and_loads(const Fp8Config& config, Scaling scaling, Format a = Format::e4m3,
                        Format b = Format::e4m3) {
  const gemm_fp8::Fp8Problem problem{
      .m = 4096, .n = 4096, .k = 4096, .scaling = scaling, .a_format = a, .b_format = b};
  SCOPED_TRACE(gemm_fp8::to_string(config) + " " + gemm_fp8::to_string(scaling) + " " +
               gemm_fp8::to_string(a) + " x " + gemm_fp8::to_string(b));
  ASSERT_TRUE(gemm_fp8::violations(config, problem).empty());
  GemmCompileOptions options;
  options.nvcc = CUTUNE_NVCC;
  options.cache_dir = CUTUNE_GEMM_FP8_TEST_CACHE;
  options.jobs = 1;  // CUTLASS instantiations are heavy; the test machine is small
  options.time_limit = std::chrono::minutes(30);  // a busy shared machine
  Fp8Compiler compiler(gemm_fp8::LibraryKind(problem), options);
  const cuda::CompileResult result = compiler.submit(config).get();
  ASSERT_TRUE(result.ok()) << result.log;
  EXPECT_EQ(result.cubin.extension(), ".so");
  void* library = dlopen(result.cubin.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (const char* symbol : {CUTUNE_GEMM_FP8_WORKSPACE_SYMBOL, CUTUNE_GEMM_FP8_PREPARE_SYMBOL,
                             CUTUNE_GEMM_FP8_LAUNCH_SYMBOL, CUTUNE_GEMM_FP8_RELEASE_SYMBOL}) {
    EXPECT_NE(dlsym(library, symbol), nullptr) << symbol;
  }
  // A problem of another scaling is refused before any CUDA call.
  CutuneGemmFp8Args args{};
  args.abi_version = CUTUNE_GEMM_FP8_ABI_VERSION;
  args.scaling = (static_cast<int>(scaling) + 1) % 3;
  char error[128] = {};
  const auto prepare =
      reinterpret_cast<CutuneGemmFp8PrepareFn>(dlsym(library, CUTUNE_GEMM_FP8_PREPARE_SYMBOL));
  EXPECT_EQ(prepare(&args, nullptr, error, sizeof error), nullptr);
  EXPECT_STREQ(error, "the library was compiled for another scaling");
  // And one of its scaling whose operands are of other formats.
  args.scaling = static_cast<int>(scaling);
  args.a_format = static_cast<int>(a);
  args.b_format = 1 - static_cast<int>(b);
  EXPECT_EQ(prepare(&args, nullptr, error, sizeof error), nullptr);
  EXPECT_STREQ(error, "the library was compiled for other operand formats");
}

Fp8Config default_of(Scaling scaling) {
  const auto ts = make_gemm_fp8_space();
  const Problem p = gemm_fp8_problem(4096, 4096, 4096, gemm_fp8::to_string(scaling));
  return to_fp8_config(default_config(*ts, p, Device::h200()));
}

TEST(Fp8Compile, TheDefaultOfEachScaling) {
  for (Scaling s : {Scaling::tensor, Scaling::row_col, Scaling::block}) {
    compiles_and_loads(default_of(s), s);
  }
}

// The schedules the defaults do not take, with clusters, the other raster, swapped operands (D^T
// column-major, the row and column scales trading places, so the formats too), the stream-K
// scheduler and e5m2 on either side: two compiles, as each costs about a minute of a CI core.
TEST(Fp8Compile, SwappedStreamKFastAccumulationAndBlockPingpongWithClustersAndRaster) {
  Fp8Config swapped;
  swapped.tile_m = 16;
  swapped.tile_n = 128;
  swapped.stages = 10;
  swapped.schedule = Schedule::cooperative_fast_accum;
  swapped.stream_k = true;
  swapped.cluster_n = 2;
  swapped.raster = gemm::Raster::along_m;
  swapped.swizzle = 4;
  swapped.swap_ab = true;
  compiles_and_loads(swapped, Scaling::row_col, Format::e5m2, Format::e4m3);

  Fp8Config block_pingpong;
  block_pingpong.tile_m = 64;
  block_pingpong.stages = 7;
  block_pingpong.schedule = Schedule::pingpong;
  block_pingpong.cluster_m = 2;
  compiles_and_loads(block_pingpong, Scaling::block, Format::e4m3, Format::e5m2);
}

}  // namespace
}  // namespace cutune
