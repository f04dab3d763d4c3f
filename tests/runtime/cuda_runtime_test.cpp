// The runtime on a GPU (ctest label "gpu"): the row_sum example loaded into this process's CUDA
// context and launched, from the default config, a tune now, and a background tune.
#include <cuda.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "runtime/cuda_testing.hpp"

namespace cutune {
namespace {

class CudaRuntime : public testing::CudaContextTest {
 protected:
  // Launches a row_sum kernel on rows x cols and checks every sum.
  void expect_row_sums(const Kernel& kernel, long long rows, long long cols) {
    std::vector<float> host(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 5);
    CUdeviceptr in, out;
    ASSERT_EQ(cuMemAlloc(&in, host.size() * sizeof(float)), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&out, rows * sizeof(float)), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyHtoD(in, host.data(), host.size() * sizeof(float)), CUDA_SUCCESS);
    void* params[] = {&in, &out, &rows, &cols};
    ASSERT_EQ(kernel.as<CudaKernel>().launch(nullptr, params), 0);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<float> sums(static_cast<std::size_t>(rows));
    ASSERT_EQ(cuMemcpyDtoH(sums.data(), out, sums.size() * sizeof(float)), CUDA_SUCCESS);
    for (long long r = 0; r < rows; ++r) {
      double expected = 0;
      for (long long c = 0; c < cols; ++c) expected += host[r * cols + c];
      ASSERT_NEAR(sums[r], expected, 1e-3 * expected) << "row " << r;
    }
    cuMemFree(in);
    cuMemFree(out);
  }

  const KernelSpec spec_ =
      load_spec(std::filesystem::path(CUTUNE_EXAMPLES_DIR) / "cuda/reduction.json");
};

RuntimeOptions options(Policy policy) {
  RuntimeOptions o;
  o.policy = policy;
  o.tune.max_evaluations = 4;
  o.tune.retime_top = 1;
  o.tune.strategy = "random";
  o.on_warning = [](const std::string&) {};  // kept in Runtime::warnings(), checked below
  return o;
}

// The only warnings these tests expect: an untuned shape answered by the default config.
void expect_only_untuned_notices(const Runtime& runtime) {
  for (const std::string& warning : runtime.warnings()) {
    EXPECT_NE(warning.find("is untuned"), std::string::npos) << warning;
    EXPECT_NE(warning.find("default config"), std::string::npos) << warning;
  }
}

TEST_F(CudaRuntime, DefaultConfigLaunchesAndComputesRowSums) {
  Runtime runtime(options(Policy::default_now));
  runtime.add_family(cuda_spec_family(spec_));
  const Kernel& kernel = runtime.get("row_sum", Problem::parse("rows=300,cols=1000"));
  EXPECT_EQ(kernel.origin(), KernelOrigin::default_config);
  EXPECT_EQ(kernel.as<CudaKernel>().shape().grid[0], 300u);
  expect_row_sums(kernel, 300, 1000);
  EXPECT_EQ(runtime.warnings().size(), 1u);
  expect_only_untuned_notices(runtime);
}

TEST_F(CudaRuntime, TuneNowAndInBackgroundGiveCorrectTunedKernels) {
  Runtime runtime(options(Policy::tune_now));
  runtime.add_family(cuda_spec_family(spec_));
  const Kernel& now = runtime.get("row_sum", Problem::parse("rows=512,cols=2048"));
  EXPECT_EQ(now.origin(), KernelOrigin::tuned);
  expect_row_sums(now, 512, 2048);

  const auto query = runtime.query("row_sum", Problem::parse("rows=256,cols=4096"));
  EXPECT_EQ(runtime.get(query, Policy::tune_in_background).origin(), KernelOrigin::default_config);
  runtime.wait_for_background();  // loads into the test's context from the tune's thread
  const Kernel& later = runtime.get(query);
  EXPECT_EQ(later.origin(), KernelOrigin::tuned);
  expect_row_sums(later, 256, 4096);
  expect_only_untuned_notices(runtime);
}

}  // namespace
}  // namespace cutune
