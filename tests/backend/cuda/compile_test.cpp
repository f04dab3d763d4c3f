// NVRTC and nvcc compile the shipped examples to sm_90a cubins through the real compilers; the
// cache serves repeats and notices changed headers; failures keep their logs; a compile past
// its limit is killed.
#include "cutune/cuda/compile.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "test_support.hpp"

namespace cutune::cuda {
namespace {

using testing::compiler_options;
using testing::example;
using testing::read_text;
using testing::TempDir;

CompileRequest request_for(const std::string& file, CompilerKind compiler = CompilerKind::nvrtc) {
  CompileRequest request;
  request.source = read_text(example(file));
  request.source_name = file;
  request.include_dirs = {example(file).parent_path()};
  request.options = {"-std=c++17"};
  request.compiler = compiler;
  return request;
}

// A cubin is an ELF file; its string table names every entry symbol.
void expect_cubin_with(const CompileResult& result, const std::string& symbol) {
  ASSERT_TRUE(result.ok()) << result.log;
  std::string cubin = read_text(result.cubin);
  ASSERT_GE(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_NE(cubin.find(symbol), std::string::npos) << symbol << " missing from " << result.cubin;
}

TEST(CubinCompiler, NvrtcCompilesTheReductionForEveryVectorWidth) {
  TempDir cache("reduction");
  CubinCompiler compiler(compiler_options(cache.path()));
  std::vector<std::shared_future<CompileResult>> pending;
  for (const char* vec : {"1", "2", "4"}) {
    auto request = request_for("reduction.cu");
    request.defines = {{"VEC", vec}, {"BLOCK_THREADS", "128"}, {"UNROLL", "4"}};
    pending.push_back(compiler.submit(request));
  }
  std::set<std::filesystem::path> cubins;
  for (auto& future : pending) {
    const auto& result = future.get();
    expect_cubin_with(result, "row_sum");
    expect_cubin_with(result, "row_sum_reference");
    EXPECT_FALSE(result.cached);
    EXPECT_GT(result.compile_s, 0.0);
    cubins.insert(result.cubin);
  }
  EXPECT_EQ(cubins.size(), 3u) << "each define set has its own cubin";
}

// Kernels written for nvcc include the toolkit's device libraries (CUB's block-level algorithms);
// NVRTC finds them as nvcc does.
TEST(CubinCompiler, NvrtcFindsTheToolkitsHeadersAsNvccDoes) {
  TempDir cache("toolkit-headers");
  CubinCompiler compiler(compiler_options(cache.path()));
  CompileRequest request;
  request.source = R"cu(#include <cub/block/block_reduce.cuh>
extern "C" __global__ void block_sum(const float* in, float* out) {
  using Reduce = cub::BlockReduce<float, 128>;
  __shared__ typename Reduce::TempStorage storage;
  const float sum = Reduce(storage).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = sum;
}
)cu";
  request.source_name = "block_sum.cu";
  request.options = {"-std=c++17"};
  request.compiler = CompilerKind::nvrtc;
  expect_cubin_with(compiler.submit(request).get(), "block_sum");
}

TEST(CubinCompiler, NameExpressionsInstantiateTemplatesWithKnobMacros) {
  TempDir cache("matmul");
  CubinCompiler compiler(compiler_options(cache.path()));
  auto request = request_for("tiled_matmul.cu");
  request.defines = {
      {"TILE_M", "64"}, {"TILE_N", "32"}, {"TILE_K", "16"}, {"THREAD_M", "4"}, {"THREAD_N", "2"}};
  const std::string entry = "tiled_matmul<TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>";
  request.name_expressions = {entry};
  auto result = compiler.compile(request);
  // Itanium mangling of tiled_matmul<64, 32, 16, 4, 2>(const float*, const float*, float*, ...)
  EXPECT_EQ(result.symbol(entry), "_Z12tiled_matmulILi64ELi32ELi16ELi4ELi2EEvPKfS1_Pfxxx");
  expect_cubin_with(result, result.symbol(entry));

  auto again = compiler.compile(request);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.symbol(entry), result.symbol(entry)) << "lowered names survive the cache";

  // A cubin whose names were never written (its compile's result was dropped) heals itself.
  for (const auto& file : std::filesystem::directory_iterator(cache.path())) {
    if (file.path().string().ends_with(".names.json")) std::filesystem::remove(file.path());
  }
  auto healed = compiler.compile(request);
  EXPECT_TRUE(healed.cached);
  EXPECT_EQ(healed.symbol(entry), result.symbol(entry));
}

TEST(CubinCompiler, SecondCompileIsACacheHitEvenFromAnotherCompiler) {
  TempDir cache("hit");
  auto request = request_for("faults.cu");
  std::filesystem::path first_cubin;
  {
    CubinCompiler compiler(compiler_options(cache.path()));
    auto first = compiler.compile(request);
    expect_cubin_with(first, "scale_add");
    EXPECT_FALSE(first.cached);
    first_cubin = first.cubin;
  }
  CubinCompiler compiler(compiler_options(cache.path()));  // as a second tuner process would
  auto start = std::chrono::steady_clock::now();
  auto second = compiler.compile(request);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.compile_s, 0.0);
  EXPECT_EQ(second.cubin, first_cubin);
  EXPECT_LT(wall, 0.5) << "a hit must not run the compiler";
}

TEST(CubinCompiler, KeyFollowsIncludedHeadersArchAndDefines) {
  TempDir dir("headers");
  std::filesystem::create_directories(dir.path() / "inc" / "deep");
  std::ofstream(dir.path() / "inc" / "knobs.h") << "#include \"deep/value.h\"\n";
  std::ofstream(dir.path() / "inc" / "deep" / "value.h") << "#define OFFSET 1.0f\n";
  CompileRequest request;
  request.source =
      "#include <knobs.h>\n"
      "extern \"C\" __global__ void add(float* y) { y[threadIdx.x] += OFFSET; }\n";
  request.include_dirs = {dir.path() / "inc"};
  CubinCompiler compiler(compiler_options(dir.path() / "cache"));

  auto key = compiler.cache_key(request);
  EXPECT_EQ(compiler.cache_key(request), key) << "stable";
  auto first = compiler.compile(request);
  expect_cubin_with(first, "add");

  std::ofstream(dir.path() / "inc" / "deep" / "value.h") << "#define OFFSET 2.0f\n";
  EXPECT_NE(compiler.cache_key(request), key) << "a header two includes deep changed";
  auto second = compiler.compile(request);
  EXPECT_FALSE(second.cached);
  EXPECT_NE(second.cubin, first.cubin);

  auto other_arch = request;
  other_arch.arch = "sm_100a";
  EXPECT_NE(compiler.cache_key(other_arch), compiler.cache_key(request));
  auto other_define = request;
  other_define.defines = {{"UNUSED", "1"}};
  EXPECT_NE(compiler.cache_key(other_define), compiler.cache_key(request));
}

TEST(CubinCompiler, CompileErrorKeepsTheLogAndIsCached) {
  TempDir cache("error");
  CubinCompiler compiler(compiler_options(cache.path()));
  auto request = request_for("faults.cu");
  request.defines = {{"MODE", "1"}};
  auto result = compiler.compile(request);
  EXPECT_EQ(result.status, CompileStatus::error);
  EXPECT_NE(result.log.find("this_name_is_not_declared"), std::string::npos) << result.log;
  ASSERT_FALSE(result.log_file.empty());
  EXPECT_NE(read_text(result.log_file).find("this_name_is_not_declared"), std::string::npos);

  auto again = compiler.compile(request);
  EXPECT_EQ(again.status, CompileStatus::error);
  EXPECT_TRUE(again.cached) << "a refused source is refused again without compiling";
}

TEST(CubinCompiler, CompilePastItsLimitIsKilled) {
  TempDir cache("timeout");
  CubinCompiler compiler(compiler_options(cache.path(), std::chrono::milliseconds(1500)));
  auto request = request_for("faults.cu");
  request.defines = {{"MODE", "6"}};  // a template blow-up that compiles for minutes
  auto start = std::chrono::steady_clock::now();
  auto result = compiler.compile(request);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Issue 17: starved of CPU by other work on this machine even with stretched retries, it is no
  // verdict (transient, saying so) rather than a timeout.
  if (result.status == CompileStatus::transient) {
    EXPECT_NE(result.log.find("starved it"), std::string::npos) << result.log;
    EXPECT_LT(wall, 1.5 * 5 + 3);  // the limit, then twice it, twice, and the pauses
    return;
  }
  EXPECT_EQ(result.status, CompileStatus::timeout) << result.log;
  EXPECT_LT(wall, 6.0 * 2);
  EXPECT_NE(result.log.find("time limit"), std::string::npos);
  ASSERT_FALSE(result.log_file.empty());
  EXPECT_TRUE(std::filesystem::exists(result.log_file));
}

TEST(CubinCompiler, NvccBuildsTheSameExamples) {
  TempDir cache("nvcc");
  CubinCompiler compiler(compiler_options(cache.path()));
  auto request = request_for("reduction.cu", CompilerKind::nvcc);
  request.defines = {{"VEC", "4"}};
  expect_cubin_with(compiler.compile(request), "row_sum");
  EXPECT_NE(compiler.identity(CompilerKind::nvcc).find("nvcc cuda_13"), std::string::npos);

  auto templated = request_for("tiled_matmul.cu", CompilerKind::nvcc);
  templated.name_expressions = {"tiled_matmul<16, 16, 8, 1, 1>"};
  EXPECT_THROW(compiler.submit(templated), std::invalid_argument);
}

// nvcc reports no lowered names: a kernel that is not extern "C" (as Kernel Tuner's seldom are) is
// found by its plain name among the cubin's symbols, and an overload is refused with its symbols.
TEST(CubinCompiler, NvccFindsAKernelThatIsNotExternC) {
  TempDir cache("nvcc-names");
  CubinCompiler compiler(compiler_options(cache.path()));
  CompileRequest request;
  request.source =
      R"cu(__global__ void scale(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 2; }
extern "C" __global__ void shift(float* x) { x[threadIdx.x] += 1; }
__global__ void twice(float* x) { x[0] *= 2; }
__global__ void twice(double* x) { x[0] *= 2; }
)cu";
  request.source_name = "names.cu";
  request.compiler = CompilerKind::nvcc;
  request.name_expressions = {"scale", "shift"};
  const CompileResult result = compiler.compile(request);
  ASSERT_TRUE(result.ok()) << result.log;
  EXPECT_EQ(result.symbol("scale"), "_Z5scalePfi");
  EXPECT_EQ(result.symbol("shift"), "shift");
  request.name_expressions = {"twice"};
  const CompileResult overloaded = compiler.compile(request);
  EXPECT_FALSE(overloaded.ok());
  EXPECT_NE(overloaded.log.find("'twice' is overloaded (_Z5twicePd, _Z5twicePf)"),
            std::string::npos)
      << overloaded.log;
}

}  // namespace
}  // namespace cutune::cuda
