// Compiles device/hopper_gemm.cu with the real nvcc for sm_90a, as a tuner would, and checks the
// cubins: both entry points present and no register spills. No GPU is needed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <vector>

#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_problem.hpp"

namespace cutune::gemm {
namespace {

struct CompileResult {
  int status = -1;
  std::string log;
  std::string cubin;  // the file's bytes
};

CompileResult compile(const GemmConfig& config, DType dtype, BLayout layout,
                      const std::filesystem::path& cubin) {
  std::string command = std::string(CUTUNE_NVCC) +
                        " -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v"
                        " -I" CUTUNE_CUTLASS_INCLUDE_DIR;
  for (const auto& define : compile_defines(config, dtype, layout)) command += " -D" + define;
  command += " -o " + cubin.string() + " " CUTUNE_GEMM_DEVICE_SOURCE " 2>&1";
  CompileResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (const std::size_t read = std::fread(buffer, 1, sizeof(buffer), pipe)) {
    result.log.append(buffer, read);
  }
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream file(cubin, std::ios::binary);
  result.cubin.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  return result;
}

// ptxas -v reports each entry's spills on the line after "Compiling entry function 'NAME'".
std::string spill_line(const std::string& log, const std::string& entry) {
  const auto at = log.find("Compiling entry function '" + entry + "'");
  if (at == std::string::npos) return "";
  const auto line = log.find("spill stores", at);
  if (line == std::string::npos) return "";
  const auto begin = log.rfind('\n', line) + 1;
  return log.substr(begin, log.find('\n', line) - begin);
}

class GemmCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("cutune_gemm_compile_" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::filesystem::path directory_;
};

TEST_F(GemmCompile, ConfigurationsCompileToCubinsWithBothEntriesAndNoSpills) {
  struct Case {
    std::string name;
    DType dtype;
    BLayout layout;
  };
  // Between them: both schedules, both layouts, both dtypes, clusters along M and N, split-K,
  // K chunks of 32 (64-byte swizzle), the programmatic-launch path and the widest knob ranges.
  const std::vector<Case> cases = {
      {to_string(GemmConfig{}), DType::bf16, BLayout::k_by_n},
      {"64x256x64_s5_c1x2_ping_rm2_k2", DType::fp16, BLayout::n_by_k},
      {"256x128x32_s8_c2x1_coop_rm4_k1_pdl", DType::bf16, BLayout::n_by_k},
      // The large-tile seeds' config: the programmatic launch without a cluster.
      {"128x256x64_s4_c1x1_coop_rn8_k1_pdl", DType::fp16, BLayout::k_by_n},
      // The widest ranges: 16 stages, a group of 13 tiles and 7 K slices.
      {"64x64x32_s16_c1x1_ping_rn13_k7", DType::bf16, BLayout::k_by_n},
  };
  std::vector<std::future<CompileResult>> results;
  for (const Case& c : cases) {
    ASSERT_TRUE(fits(parse_config(c.name), GemmProblem{4096, 4096, 4096, c.dtype, c.layout}));
    results.push_back(std::async(std::launch::async, compile, parse_config(c.name), c.dtype,
                                 c.layout, directory_ / (c.name + ".cubin")));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CompileResult result = results[i].get();
    SCOPED_TRACE(cases[i].name);
    ASSERT_EQ(result.status, 0) << result.log;
    EXPECT_NE(result.cubin.find(std::string(kGemmSymbol) + '\0'), std::string::npos);
    EXPECT_NE(result.cubin.find(std::string(kSplitKReduceSymbol) + '\0'), std::string::npos);
    EXPECT_NE(spill_line(result.log, kGemmSymbol).find(" 0 bytes spill stores"), std::string::npos)
        << result.log;
    EXPECT_EQ(result.log.find("warning"), std::string::npos) << result.log;
  }
}

TEST_F(GemmCompile, KernelRefusesAConfigurationOutsideItsRules) {
  // nvcc fails on `config` with the kernel's static_assert `message`.
  const auto expect_refused = [&](const GemmConfig& config, const std::string& file,
                                  const std::string& message) {
    const CompileResult result = compile(config, DType::bf16, BLayout::k_by_n, directory_ / file);
    EXPECT_NE(result.status, 0);
    EXPECT_NE(result.log.find(message), std::string::npos) << result.log;
  };
  GemmConfig config;  // cooperative needs two warpgroups of 64 rows
  config.tile_m = 64;
  expect_refused(config, "rejected.cubin", "the cooperative schedule needs CUTUNE_TILE_M >= 128");
  // The fast-launch envelope: the kernel reads the host's rule (gemm_rules.hpp) and refuses what
  // it refuses.
  GemmConfig fast;
  fast.schedule = Schedule::pingpong;
  fast.tile_n = 128;
  fast.fast_launch = true;
  ASSERT_FALSE(fits(fast, GemmProblem{4096, 4096, 4096}));
  expect_refused(fast, "rejected_fast.cubin", "CUTUNE_FAST_LAUNCH: see rules::fast_launch_allowed");
}

}  // namespace
}  // namespace cutune::gemm
