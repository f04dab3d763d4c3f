// The GEMM runtime family's CPU-side parts: problem resolution, the compile path (real nvcc on the
// real kernel source, no GPU), and the error of a family made without a CUDA context. Run against
// the toolkit's driver stub (ctest sets LD_LIBRARY_PATH), whose every call fails as a machine
// without a GPU would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

#include "cutune/gemm.hpp"
#include "cutune/heuristics.hpp"
#include "gemm/gemm_cubins.hpp"
#include "gemm/gemm_runtime_support.hpp"
#include "gemm/gemm_space.hpp"
#include "gemm_runtime_testing.hpp"

namespace cutune {
namespace {

using testing::message_of;

TEST(GemmFamily, ResolveFillsTheDtypeAndKeepsWhatIsGiven) {
  const Problem plain = resolve_gemm_problem(Problem::parse("m=256,n=512,k=1024"));
  EXPECT_EQ(plain.canonical(), "dtype=bf16,k=1024,m=256,n=512");
  const Problem half = resolve_gemm_problem(Problem::parse("m=256,n=512,k=1024,dtype=fp16"));
  EXPECT_EQ(half.at("dtype").as_string(), "fp16");
  const Problem layout = resolve_gemm_problem(Problem::parse("m=256,n=512,k=1024,b_layout=n_by_k"));
  EXPECT_EQ(layout.canonical(), "b_layout=n_by_k,dtype=bf16,k=1024,m=256,n=512");
  // The default layout named keys as it does unnamed: a tune given b_layout=k_by_n is found by the
  // runtime, whose problem text names only n_by_k.
  EXPECT_EQ(resolve_gemm_problem(Problem::parse("m=256,n=512,k=1024,b_layout=k_by_n")), plain);
}

TEST(GemmFamily, ResolveRejectsProblemsTheKernelCannotRun) {
  EXPECT_THROW(resolve_gemm_problem(Problem::parse("m=256,n=512,k=1001")), std::invalid_argument);
  EXPECT_NE(message_of([] {
              resolve_gemm_problem(Problem::parse("m=256,n=512,k=1001"));
            }).find("k = 1001 is not a multiple of 8"),
            std::string::npos);
  EXPECT_NE(
      message_of([] { resolve_gemm_problem(Problem::parse("m=256,k=512")); }).find("gemm problem"),
      std::string::npos);
  EXPECT_THROW(resolve_gemm_problem(Problem::parse("m=256,k=512")), std::invalid_argument);
  EXPECT_THROW(resolve_gemm_problem(Problem::parse("m=256,n=512,k=512,dtype=fp8")),
               std::invalid_argument);
}

TEST(GemmFamily, WithoutACudaContextCreationFailsClearly) {
  testing::expect_refused_without_context([] { gemm_family(); }, "gemm_family");
}

// The launch cache both GEMM runtime kernels keep (gemm_runtime_support.hpp), on plain ints for
// launches: the most recently used first, the least recently used dropped beyond the limit.
TEST(GemmFamily, PreparedLaunchesKeepTheMostRecentlyUsed) {
  runtime::PreparedLaunches<int, 2> launches;
  int made = 0;
  auto get = [&](CUdeviceptr a) {
    return *launches.get({a, 0}, [&] { return std::make_shared<const int>(++made); });
  };
  constexpr auto kept = static_cast<CUdeviceptr>(GemmRuntimeKernel::kCachedLaunches);
  for (CUdeviceptr a = 1; a <= kept; ++a) EXPECT_EQ(get(a), static_cast<int>(a));
  EXPECT_EQ(get(1), 1);  // cached, and now the most recently used
  EXPECT_EQ(launches.prepared(), kept);
  EXPECT_EQ(get(kept + 1), static_cast<int>(kept) + 1);  // drops 2, the least recently used
  EXPECT_EQ(get(1), 1);
  EXPECT_EQ(get(2), static_cast<int>(kept) + 2);  // prepared again
  EXPECT_EQ(launches.prepared(), kept + 2);
  launches.clear();
  EXPECT_EQ(get(1), static_cast<int>(kept) + 3);
}

// Real nvcc: a config compiles per dtype (the cubin depends on it, not on m, n, k), the second
// request is the cached cubin, and the key parts match what the tuner's compiler writes.
TEST(GemmFamilyCompile, CompilesPerDtypeThroughTheTunersCompiler) {
  GemmCompileOptions options;
  options.cache_dir = CUTUNE_GEMM_TEST_CACHE;
  runtime::GemmCubins cubins(options);
  const auto space = make_gemm_space();
  const Problem bf16 = resolve_gemm_problem(gemm_problem(256, 256, 256));
  const Problem bf16_other = resolve_gemm_problem(gemm_problem(512, 1024, 2048));
  const Problem fp16 = resolve_gemm_problem(gemm_problem(256, 256, 256, "fp16"));
  const Config config = default_config(*space, bf16, Device::h200());

  const std::filesystem::path first = cubins.compile(config, bf16);
  EXPECT_TRUE(std::filesystem::exists(first));
  EXPECT_EQ(cubins.compile(config, bf16_other), first);
  const std::filesystem::path half = cubins.compile(config, fp16);
  EXPECT_NE(half, first);
  EXPECT_TRUE(std::filesystem::exists(half));

  GemmCompiler tuner(bf16, options);
  EXPECT_EQ(cubins.version(), tuner.source_version());
  EXPECT_EQ(cubins.compiler_toolchain(), tuner.toolchain());
  const cuda::CompileResult again = tuner.submit(config).get();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.cubin, first);
}

// A compiler that answers --version but fails every compile: the load error names the config,
// the problem and the compiler's message.
TEST(GemmFamily, AConfigThatDoesNotCompileNamesItselfAndTheLog) {
  testing::TempDir dir;
  const std::filesystem::path nvcc = dir / "nvcc";
  {
    std::ofstream script(nvcc);
    script << "#!/bin/sh\n"
              "if [ \"$1\" = --version ]; then echo 'Build fake_nvcc_1'; exit 0; fi\n"
              "echo 'fake nvcc refuses' >&2; exit 1\n";
  }
  std::filesystem::permissions(nvcc, std::filesystem::perms::owner_all);
  GemmCompileOptions options;
  options.cache_dir = dir / "cache";
  options.nvcc = nvcc.string();
  runtime::GemmCubins cubins(options);
  EXPECT_EQ(cubins.compiler_toolchain(), "nvcc fake_nvcc_1; sm_90a -std=c++17 -O3");
  const auto space = make_gemm_space();
  const Problem problem = resolve_gemm_problem(gemm_problem(256, 256, 256));
  const Config config = default_config(*space, problem, Device::h200());
  const std::string message = message_of([&] { cubins.compile(config, problem); });
  EXPECT_NE(message.find("gemm config " + config.to_string() +
                         " does not compile for dtype=bf16,k=256,m=256,n=256"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("fake nvcc refuses"), std::string::npos) << message;
}

}  // namespace
}  // namespace cutune
