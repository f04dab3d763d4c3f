// D = A * B in row-major terms is D^T = B^T * A^T in cuBLAS's column-major ones (as
// gemm_cublas.cpp).
#include "cublas_gemm_ex.hpp"

#include <stdexcept>
#include <string>

#include "gemm/gemm_cublas.hpp"

namespace cutune::bench {
using gemm::check_cublas;

CublasGemmEx::CublasGemmEx(const gemm::GemmProblem& problem)
    : problem_(problem), workspace_(kWorkspaceBytes) {
  check_cublas(cublasCreate(&handle_), "cuBLAS", "cublasCreate");
  check_cublas(
      cublasSetWorkspace(handle_, reinterpret_cast<void*>(workspace_.pointer), kWorkspaceBytes),
      "cuBLAS", "cublasSetWorkspace");
}

CublasGemmEx::~CublasGemmEx() { cublasDestroy(handle_); }

void CublasGemmEx::run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream) const {
  const gemm::GemmProblem& p = problem_;
  const cudaDataType type = p.dtype == gemm::DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  // Row-major N x K is column-major K x N: transposing it gives the B^T cuBLAS multiplies by.
  const bool b_transposed = p.b_layout == gemm::BLayout::n_by_k;
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto pointer = [](CUdeviceptr x) { return reinterpret_cast<void*>(x); };
  check_cublas(cublasSetStream(handle_, stream), "cuBLAS", "cublasSetStream");
  check_cublas(
      cublasGemmEx(handle_, b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N,
                   static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &alpha,
                   pointer(b), type, static_cast<int>(b_transposed ? p.k : p.n), pointer(a), type,
                   static_cast<int>(p.k), &beta, pointer(d), type, static_cast<int>(p.n),
                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP),
      "cuBLAS", "cublasGemmEx");
}

}  // namespace cutune::bench
