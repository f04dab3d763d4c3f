// The fp8 GEMM runtime family on an sm_90 GPU (ctest label "gpu"): for each scaling, the kernel
// Runtime::get hands out, launched on device buffers, against the fp32 product of the dequantized
// operands on the host (the family's own check inputs and tolerance); the prepared-launch cache;
// store keys equal to the tuner's.
#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cutune/gemm_fp8.hpp"
#include "families/gemm/gemm_runtime_testing.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"
#include "gemm_fp8/gemm_fp8_inputs.hpp"
#include "gemm_fp8/gemm_fp8_protocol.hpp"
#include "gemm_fp8/gemm_fp8_space.hpp"

namespace cutune {
namespace {

using testing::from_bf16;

using gemm_fp8::Fp8Problem;
using gemm_fp8::ScaleLayout;

template <typename T>
CUdeviceptr upload(const std::vector<T>& values) {
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAlloc(&p, values.size() * sizeof(T)), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD(p, values.data(), values.size() * sizeof(T)), CUDA_SUCCESS);
  return p;
}

// Seeded e4m3 operands and scales of one problem (the family's check inputs: magnitudes 2^-3 to
// 30, scales 2^-4 to 4), on the device, with the fp32 reference of their dequantized product.
struct Buffers {
  Fp8Problem problem;
  std::vector<float> reference;  // m x n
  gemm_fp8::Fp8Operands operands;

  explicit Buffers(const Fp8Problem& p) : problem(p) {
    std::mt19937_64 rng(7);
    auto next = [&rng] { return rng(); };
    const ScaleLayout layout(p);
    const auto a = gemm_fp8::random_fp8(p.a_format, static_cast<std::uint64_t>(p.m * p.k), next);
    const auto b = gemm_fp8::random_fp8(p.b_format, static_cast<std::uint64_t>(p.n * p.k), next);
    const auto scale_a = gemm_fp8::random_scales(layout.a_count(), next);
    const auto scale_b = gemm_fp8::random_scales(layout.b_count(), next);
    const auto da = gemm_fp8::dequantized(a, p.a_format, p.m, p.k, scale_a, layout, true);
    const auto db = gemm_fp8::dequantized(b, p.b_format, p.n, p.k, scale_b, layout, false);
    reference.resize(static_cast<std::size_t>(p.m * p.n));
    for (std::int64_t r = 0; r < p.m; ++r) {
      for (std::int64_t c = 0; c < p.n; ++c) {
        double sum = 0;
        for (std::int64_t kk = 0; kk < p.k; ++kk) {
          sum += static_cast<double>(da[static_cast<std::size_t>(r * p.k + kk)]) *
                 db[static_cast<std::size_t>(c * p.k + kk)];
        }
        reference[static_cast<std::size_t>(r * p.n + c)] = static_cast<float>(sum);
      }
    }
    operands = {.a = upload(a),
                .b = upload(b),
                .d = alloc_d(),
                .scale_a = upload(scale_a),
                .scale_b = upload(scale_b)};
  }
  ~Buffers() {
    for (CUdeviceptr p : {operands.a, operands.b, operands.d, operands.scale_a, operands.scale_b}) {
      cuMemFree(p);
    }
  }

  // A D of NaN, so that an element the kernel skips fails the check.
  CUdeviceptr alloc_d() const {
    return testing::nan_bf16(static_cast<std::size_t>(problem.m * problem.n));
  }

  // The family's check: max|D - reference| / max|reference| within kFp8Tolerance.
  void expect_correct(CUdeviceptr d) const {
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<std::uint16_t> out(reference.size());
    ASSERT_EQ(cuMemcpyDtoH(out.data(), d, out.size() * 2), CUDA_SUCCESS);
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double got = from_bf16(out[i]);
      const double error = std::isfinite(got) ? std::abs(got - reference[i]) : INFINITY;
      worst = std::max(worst, error);
      largest = std::max(largest, static_cast<double>(std::abs(reference[i])));
    }
    EXPECT_LE(worst / largest, cuda::protocol::kFp8Tolerance)
        << "max |D - reference| " << worst << ", max |reference| " << largest;
  }
};

using GemmFp8RuntimeTest = testing::GemmRuntimeTest;

class GemmFp8Runtime : public GemmFp8RuntimeTest,
                       public ::testing::WithParamInterface<const char*> {};

// 256x512x1024 fills whole tiles; 200x264x384 leaves partial ones in m and n (and, under block
// scaling, a last scale block of B 8 columns wide).
TEST_P(GemmFp8Runtime, TheDefaultConfigMatchesTheScaledReference) {
  Runtime runtime(runtime_options());
  runtime.add_family(gemm_fp8_family(options_));
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{256, 512, 1024}, {200, 264, 384}}) {
    SCOPED_TRACE(gemm_fp8_problem_text(m, n, k, GetParam()));
    const auto query =
        runtime.query("gemm_fp8", Problem::parse(gemm_fp8_problem_text(m, n, k, GetParam())));
    const auto& kernel = runtime.get(query).as<GemmFp8RuntimeKernel>();
    EXPECT_EQ(kernel.origin(), KernelOrigin::default_config);
    const Buffers buffers(to_fp8_problem(query.problem()));  // D and scales on the device
    kernel.launch(nullptr, buffers.operands);
    buffers.expect_correct(buffers.operands.d);
    EXPECT_EQ(kernel.prepared_count(), 1u);

    // The same operands again: nothing prepared. Another D: one more; back to the first: cached.
    ASSERT_EQ(cuMemsetD16(buffers.operands.d, 0xFFFF, static_cast<std::size_t>(m * n)),
              CUDA_SUCCESS);
    kernel.launch(nullptr, buffers.operands);
    buffers.expect_correct(buffers.operands.d);
    EXPECT_EQ(kernel.prepared_count(), 1u);
    gemm_fp8::Fp8Operands second = buffers.operands;
    second.d = buffers.alloc_d();
    kernel.launch(nullptr, second);
    buffers.expect_correct(second.d);
    EXPECT_EQ(kernel.prepared_count(), 2u);
    kernel.launch(nullptr, buffers.operands);
    EXPECT_EQ(kernel.prepared_count(), 2u);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemFree(second.d);
  }
}

INSTANTIATE_TEST_SUITE_P(Scalings, GemmFp8Runtime, ::testing::Values("tensor", "row_col", "block"));

// e5m2 on either side (gradients against weights) and on both, under each scaling.
TEST_F(GemmFp8RuntimeTest, E5m2OperandsMatchTheScaledReference) {
  Runtime runtime(runtime_options());
  runtime.add_family(gemm_fp8_family(options_));
  for (const auto& [scaling, a, b] : {std::array<const char*, 3>{"tensor", "e5m2", "e4m3"},
                                      {"row_col", "e4m3", "e5m2"},
                                      {"block", "e5m2", "e5m2"}}) {
    const std::string text = gemm_fp8_problem_text(200, 264, 384, scaling, a, b);
    SCOPED_TRACE(text);
    const auto query = runtime.query("gemm_fp8", Problem::parse(text));
    const auto& kernel = runtime.get(query).as<GemmFp8RuntimeKernel>();
    const Buffers buffers(to_fp8_problem(query.problem()));
    kernel.launch(nullptr, buffers.operands);
    buffers.expect_correct(buffers.operands.d);
  }
}

// A stored winner of `cutune tune gemm_fp8` is found by the runtime only when both write the same
// key.
TEST_F(GemmFp8RuntimeTest, StoreKeyPartsAreTheTunersOwn) {
  const Family family = gemm_fp8_family(options_);
  const FamilyEvaluator made =
      family.make_evaluator(family.resolve(Problem::parse("m=256,n=256,k=256")), {});
  EXPECT_EQ(family.device_key, made.evaluator->device_name());
  EXPECT_EQ(family.toolchain, made.evaluator->toolchain());
  EXPECT_EQ(family.version, gemm_fp8_source_version(options_.compile));
  EXPECT_EQ(family.device.sm_count, made.device.sm_count);
  EXPECT_EQ(family.device.smem_per_block, made.device.smem_per_block);
}

}  // namespace
}  // namespace cutune
