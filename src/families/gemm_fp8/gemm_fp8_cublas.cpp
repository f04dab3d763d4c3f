#include "gemm_fp8/gemm_fp8_cublas.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gemm/gemm_cublas.hpp"

namespace cutune::gemm_fp8 {
namespace {

// cuBLASLt's scale modes for our scaling, as (its A = our B, its B = our A). Per row x column is
// an outer vector each; DeepSeek-V3's is 128x128 blocks of the weights (our B) and 1x128 vectors
// of the activations (our A), both with the outer dimension fastest, as gemm_fp8_abi.hpp's.
std::pair<std::int32_t, std::int32_t> scale_modes(Scaling scaling) {
  switch (scaling) {
    case Scaling::row_col:
      return {CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F,
              CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F};
    case Scaling::block:
      return {CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F};
    case Scaling::tensor:
      break;
  }
  return {CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F};
}

cudaDataType data_type(Format format) {
  return format == Format::e5m2 ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3;
}

}  // namespace

void LtGemm::set(cublasLtMatmulDescAttributes_t attribute, const void* value, std::size_t bytes,
                 const char* what) {
  gemm::check_cublas(cublasLtMatmulDescSetAttribute(operation_, attribute, value, bytes),
                     "cuBLASLt", what);
}

LtGemm::LtGemm(const Fp8Problem& p, Kind kind) : kind_(kind) {
  const bool fp8 = kind == Kind::fp8_scaled;
  const cudaDataType in_a = fp8 ? data_type(p.a_format) : CUDA_R_32F;
  const cudaDataType in_b = fp8 ? data_type(p.b_format) : CUDA_R_32F;
  const cudaDataType out = fp8 ? CUDA_R_16BF : CUDA_R_32F;
  gemm::check_cublas(cublasLtCreate(&handle_), "cuBLASLt", "create");
  gemm::check_cublas(cublasLtMatmulDescCreate(&operation_, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                     "cuBLASLt", "operation");
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasOperation_t keep = CUBLAS_OP_N;
  set(CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose, "TRANSA");
  set(CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep, "TRANSB");
  if (fp8) {
    const auto [mode_a, mode_b] = scale_modes(p.scaling);
    set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a, sizeof mode_a, "A_SCALE_MODE");
    set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b, sizeof mode_b, "B_SCALE_MODE");
    // Placeholders for the heuristic; run() sets the scales it is given.
    const void* none = nullptr;
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &none, sizeof none, "A_SCALE_POINTER");
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &none, sizeof none, "B_SCALE_POINTER");
  }
  const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
  gemm::check_cublas(cublasLtMatrixLayoutCreate(&b_, in_b, u(p.k), u(p.n), p.k), "cuBLASLt",
                     "layout of B");
  gemm::check_cublas(cublasLtMatrixLayoutCreate(&a_, in_a, u(p.k), u(p.m), p.k), "cuBLASLt",
                     "layout of A");
  gemm::check_cublas(cublasLtMatrixLayoutCreate(&d_, out, u(p.n), u(p.m), p.n), "cuBLASLt",
                     "layout of D");
  cublasLtMatmulPreference_t preference = nullptr;
  gemm::check_cublas(cublasLtMatmulPreferenceCreate(&preference), "cuBLASLt", "preference");
  const std::size_t limit = kWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit,
                                       sizeof limit);
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle_, operation_, b_, a_, d_, d_, preference, 1, &heuristic_, &returned);
  cublasLtMatmulPreferenceDestroy(preference);
  gemm::check_cublas(status, "cuBLASLt", "heuristic");
  if (returned == 0) {
    throw std::runtime_error("cuBLASLt offers no algorithm for the fp8 problem (scaling " +
                             to_string(p.scaling) + ", A " + to_string(p.a_format) + ", B " +
                             to_string(p.b_format) + ")");
  }
  if (cuMemAlloc(&workspace_, kWorkspaceBytes) != CUDA_SUCCESS) {
    throw std::runtime_error("cuMemAlloc of cuBLASLt's workspace failed");
  }
}

LtGemm::~LtGemm() {
  if (workspace_ != 0) cuMemFree(workspace_);
  cublasLtMatrixLayoutDestroy(a_);
  cublasLtMatrixLayoutDestroy(b_);
  cublasLtMatrixLayoutDestroy(d_);
  cublasLtMatmulDescDestroy(operation_);
  cublasLtDestroy(handle_);
}

void LtGemm::run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUdeviceptr scale_a,
                 CUdeviceptr scale_b, CUstream stream) const {
  const auto pointer = [](CUdeviceptr p) { return reinterpret_cast<void*>(p); };
  if (kind_ == Kind::fp8_scaled) {
    // Its A is our B: the scales swap sides too.
    const void* its_a = pointer(scale_b);
    const void* its_b = pointer(scale_a);
    gemm::check_cublas(cublasLtMatmulDescSetAttribute(
                           operation_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &its_a, sizeof its_a),
                       "cuBLASLt", "A_SCALE_POINTER");
    gemm::check_cublas(cublasLtMatmulDescSetAttribute(
                           operation_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &its_b, sizeof its_b),
                       "cuBLASLt", "B_SCALE_POINTER");
  }
  const float alpha = 1.0f;
  const float beta = 0.0f;
  gemm::check_cublas(cublasLtMatmul(handle_, operation_, &alpha, pointer(b), b_, pointer(a), a_,
                                    &beta, pointer(d), d_, pointer(d), d_, &heuristic_.algo,
                                    pointer(workspace_), kWorkspaceBytes, stream),
                     "cuBLASLt", "matmul");
}

}  // namespace cutune::gemm_fp8
