// The GEMM runtime family on an sm_90 GPU (ctest label "gpu"): kernels from Runtime::get, launched
// on device buffers and checked against a host reference in fp32; the prepared-launch cache; a
// split-K config on its own workspace; store keys equal to the tuner's.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cutune/gemm.hpp"
#include "gemm/gemm_evaluator.hpp"
#include "gemm/gemm_problem.hpp"
#include "gemm/gemm_space.hpp"
#include "gemm_runtime_testing.hpp"

namespace cutune {
namespace {

using testing::from_bf16;

// Values k/4 for k in -4..4: exact in bf16, and every product and partial sum of a GEMM of up to
// 2^20 terms is exact in fp32, so only the final rounding to bf16 differs from the reference.
float value_at(std::size_t i, std::size_t stride) {
  return static_cast<float>(static_cast<int>((i * stride + 3) % 9) - 4) / 4.0f;
}

std::uint16_t to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);  // exact for the values above
}

// A, B and D of one bf16 problem on the device, with A and B's values on the host.
struct Buffers {
  std::int64_t m, n, k;
  std::vector<float> a, b;  // A m x k, B k x n, row-major
  CUdeviceptr da = 0, db = 0, dd = 0;

  Buffers(std::int64_t m_, std::int64_t n_, std::int64_t k_) : m(m_), n(n_), k(k_) {
    a.resize(static_cast<std::size_t>(m * k));
    b.resize(static_cast<std::size_t>(k * n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = value_at(i, 7);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = value_at(i, 5);
    da = upload(a);
    db = upload(b);
    dd = alloc_d();
  }
  ~Buffers() {
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dd);
  }

  static CUdeviceptr upload(const std::vector<float>& values) {
    std::vector<std::uint16_t> half(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) half[i] = to_bf16(values[i]);
    CUdeviceptr p = 0;
    EXPECT_EQ(cuMemAlloc(&p, half.size() * 2), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD(p, half.data(), half.size() * 2), CUDA_SUCCESS);
    return p;
  }
  // A D of NaN, so that an element the kernel skips fails the check.
  CUdeviceptr alloc_d() const { return testing::nan_bf16(static_cast<std::size_t>(m * n)); }
  gemm::GemmOperands operands() const { return {.a = da, .b = db, .d = dd, .workspace = 0}; }

  float reference(std::int64_t row, std::int64_t col) const {
    float sum = 0;
    for (std::int64_t i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
    return sum;
  }

  // Checks D at `rows` x every column (all rows when `rows` is empty).
  void expect_correct(CUdeviceptr d, std::vector<std::int64_t> rows = {}) const {
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<std::uint16_t> out(static_cast<std::size_t>(m * n));
    ASSERT_EQ(cuMemcpyDtoH(out.data(), d, out.size() * 2), CUDA_SUCCESS);
    if (rows.empty()) {
      for (std::int64_t r = 0; r < m; ++r) rows.push_back(r);
    }
    std::size_t wrong = 0;
    for (std::int64_t r : rows) {
      for (std::int64_t c = 0; c < n; ++c) {
        const float expected = reference(r, c);
        const float got = from_bf16(out[static_cast<std::size_t>(r * n + c)]);
        if (!(std::abs(got - expected) <= 1e-2f * std::max(1.0f, std::abs(expected))) &&
            wrong++ < 5) {
          ADD_FAILURE() << "D[" << r << "][" << c << "] = " << got << ", expected " << expected;
        }
      }
    }
    EXPECT_EQ(wrong, 0u);
  }
};

using GemmRuntime = testing::GemmRuntimeTest;

TEST_F(GemmRuntime, DefaultConfigMatchesTheHostReferenceAndCachesItsLaunch) {
  Runtime runtime(runtime_options());
  runtime.add_family(gemm_family(options_));
  const auto query = runtime.query("gemm", Problem::parse("m=256,n=256,k=256"));
  EXPECT_EQ(query.problem().canonical(), "dtype=bf16,k=256,m=256,n=256");
  const auto& kernel = runtime.get(query).as<GemmRuntimeKernel>();
  EXPECT_EQ(kernel.origin(), KernelOrigin::default_config);

  Buffers buffers(256, 256, 256);
  kernel.launch(nullptr, buffers.operands());
  buffers.expect_correct(buffers.dd);
  EXPECT_EQ(kernel.prepared_count(), 1u);

  // The same operands again: no new tensor maps. Another D: one more; back to the first: cached.
  ASSERT_EQ(cuMemsetD16(buffers.dd, 0xFFFF, 256 * 256), CUDA_SUCCESS);
  runtime.get(query).as<GemmRuntimeKernel>().launch(nullptr, buffers.operands());
  buffers.expect_correct(buffers.dd);
  EXPECT_EQ(kernel.prepared_count(), 1u);
  const CUdeviceptr other = buffers.alloc_d();
  gemm::GemmOperands second = buffers.operands();
  second.d = other;
  kernel.launch(nullptr, second);
  buffers.expect_correct(other);
  EXPECT_EQ(kernel.prepared_count(), 2u);
  kernel.launch(nullptr, buffers.operands());
  EXPECT_EQ(kernel.prepared_count(), 2u);
  cuMemFree(other);
}

TEST_F(GemmRuntime, TheSeedProblemRunsCorrectly) {
  Runtime runtime(runtime_options());
  runtime.add_family(gemm_family(options_));
  const auto& kernel = runtime.get("gemm", Problem::parse("m=2048,n=4096,k=4096,dtype=bf16"))
                           .as<GemmRuntimeKernel>();
  Buffers buffers(2048, 4096, 4096);
  kernel.launch(nullptr, buffers.operands());
  buffers.expect_correct(buffers.dd, {0, 1, 127, 128, 1000, 2047});
}

TEST_F(GemmRuntime, SplitKRunsOnItsOwnWorkspace) {
  const Family family = gemm_family(options_);
  const Problem problem = family.resolve(Problem::parse("m=128,n=512,k=4096"));
  Config config = default_config(*family.tuning, problem, family.device);
  const Space& space = family.tuning->space;
  config.set(space.index_of("tile_m"), 128);
  config.set(space.index_of("tile_n"), 128);
  config.set(space.index_of("tile_k"), 64);
  config.set(space.index_of("stages"), 4);
  config.set(space.index_of("schedule"), "cooperative");
  config.set(space.index_of("cluster_m"), 1);
  config.set(space.index_of("cluster_n"), 1);
  config.set(space.index_of("fast_launch"), false);
  config.set(space.index_of("split_k"), 2);
  const auto kernel = family.load(config, problem, KernelOrigin::default_config);
  const auto& gemm = kernel->as<GemmRuntimeKernel>();
  EXPECT_EQ(gemm.gemm_config().split_k, 2);
  EXPECT_EQ(gemm.workspace_bytes(), 2u * 128 * 512 * 4);
  Buffers buffers(128, 512, 4096);
  gemm.launch(nullptr, buffers.operands());
  buffers.expect_correct(buffers.dd);
}

// A stored winner of `cutune tune gemm` is found by the runtime only when both write the same key.
TEST_F(GemmRuntime, StoreKeyPartsAreTheTunersOwn) {
  const Family family = gemm_family(options_);
  auto evaluator =
      family.make_evaluator(family.resolve(Problem::parse("m=256,n=256,k=256")), {}).evaluator;
  EXPECT_EQ(family.device_key, evaluator->device_name());
  EXPECT_EQ(family.toolchain, evaluator->toolchain());
  auto& gemm = dynamic_cast<GemmEvaluator&>(*evaluator);
  EXPECT_EQ(family.version, gemm.compiler().source_version());
  EXPECT_EQ(family.device.sm_count, gemm.device().sm_count);
  EXPECT_EQ(family.device.smem_per_block, gemm.device().smem_per_block);
}

}  // namespace
}  // namespace cutune
