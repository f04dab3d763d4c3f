// cuBLASLt for D = A * B in row-major terms: D^T = B^T * A^T in its column-major terms.
#include "gemm/gemm_cublas.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cutune::gemm {
// A cuBLAS failure is the caller's problem, not a candidate's: in the worker the request fails
// as a whole.
void check_cublas(cublasStatus_t status, const char* library, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(library) + " " + what + " failed with status " +
                             std::to_string(static_cast<int>(status)));
  }
}

CublasGemm::CublasGemm(const GemmProblem& p, int algorithms) {
  const cudaDataType type = p.dtype == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  check_cublas(cublasLtCreate(&handle_), "cuBLASLt", "create");
  check_cublas(cublasLtMatmulDescCreate(&operation_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cuBLASLt",
               "operation");
  // Row-major N x K is column-major K x N: transposing it gives the B^T cuBLAS multiplies by.
  const cublasOperation_t op_b = p.b_layout == BLayout::n_by_k ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = CUBLAS_OP_N;
  check_cublas(
      cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b),
      "cuBLASLt", "TRANSA");
  check_cublas(
      cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof op_a),
      "cuBLASLt", "TRANSB");
  const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
  if (p.b_layout == BLayout::n_by_k) {
    check_cublas(cublasLtMatrixLayoutCreate(&b_, type, u(p.k), u(p.n), p.k), "cuBLASLt",
                 "layout of B");
  } else {
    check_cublas(cublasLtMatrixLayoutCreate(&b_, type, u(p.n), u(p.k), p.n), "cuBLASLt",
                 "layout of B");
  }
  check_cublas(cublasLtMatrixLayoutCreate(&a_, type, u(p.k), u(p.m), p.k), "cuBLASLt",
               "layout of A");
  check_cublas(cublasLtMatrixLayoutCreate(&d_, type, u(p.n), u(p.m), p.n), "cuBLASLt",
               "layout of D");
  check_cublas(cublasLtMatmulPreferenceCreate(&preference_), "cuBLASLt", "preference");
  const std::size_t limit = kWorkspaceBytes;
  check_cublas(cublasLtMatmulPreferenceSetAttribute(
                   preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit, sizeof limit),
               "cuBLASLt", "workspace preference");
  int returned = 0;
  heuristics_.resize(static_cast<std::size_t>(std::max(algorithms, 1)));
  check_cublas(cublasLtMatmulAlgoGetHeuristic(handle_, operation_, b_, a_, d_, d_, preference_,
                                              static_cast<int>(heuristics_.size()),
                                              heuristics_.data(), &returned),
               "cuBLASLt", "heuristic");
  if (returned == 0) throw std::runtime_error("cuBLASLt offers no algorithm for the problem");
  heuristics_.resize(static_cast<std::size_t>(returned));
  if (CUresult code = cuMemAlloc(&workspace_, kWorkspaceBytes); code != CUDA_SUCCESS) {
    throw std::runtime_error("cuMemAlloc of cuBLASLt's workspace failed with CUresult " +
                             std::to_string(static_cast<int>(code)));
  }
}

CublasGemm::~CublasGemm() {
  if (workspace_ != 0) cuMemFree(workspace_);
  cublasLtMatmulPreferenceDestroy(preference_);
  cublasLtMatrixLayoutDestroy(a_);
  cublasLtMatrixLayoutDestroy(b_);
  cublasLtMatrixLayoutDestroy(d_);
  cublasLtMatmulDescDestroy(operation_);
  cublasLtDestroy(handle_);
}

void CublasGemm::run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream,
                     int algorithm) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto pointer = [](CUdeviceptr p) { return reinterpret_cast<void*>(p); };
  check_cublas(
      cublasLtMatmul(handle_, operation_, &alpha, pointer(b), b_, pointer(a), a_, &beta, pointer(d),
                     d_, pointer(d), d_, &heuristics_.at(static_cast<std::size_t>(algorithm)).algo,
                     pointer(workspace_), kWorkspaceBytes, stream),
      "cuBLASLt", "matmul");
}

}  // namespace cutune::gemm
