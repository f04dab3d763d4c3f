// cuBLASLt on a problem of the fp8 GEMM family, in the TN form fp8 needs: cuBLAS's column-major
// D^T (n x m) = B (n x k, transposed) times A^T, so that our row-major operands are its own. Two
// uses in the worker's fp8 mode: the fp8 GEMM with the problem's scales (the yardstick a config is
// timed against, as torch._scaled_mm runs it: no fast accumulation), and the fp32 product of the
// dequantized operands (the reference a config is checked against). Needs a current CUDA context;
// links CUDA::cublasLt.
#pragma once

#include <cublasLt.h>
#include <cuda.h>

#include <cstddef>

#include "gemm_fp8/gemm_fp8_problem.hpp"

namespace cutune::gemm_fp8 {

class LtGemm {
 public:
  enum class Kind {
    fp8_scaled,  // A, B e4m3, D bf16, the problem's scaling as cuBLASLt's scale modes
    fp32,        // A, B, D fp32, no scales: the reference over dequantized operands
  };

  // Throws std::runtime_error naming the cuBLASLt or driver call that failed, or when cuBLASLt
  // offers no algorithm (a scaling its version lacks: block scaling needs cuBLAS 12.9).
  LtGemm(const Fp8Problem& problem, Kind kind);
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  ~LtGemm();

  // Enqueues D = A * B^T (scaled, for fp8_scaled; the scales are gemm_fp8_abi.hpp's, in device
  // memory) on `stream`. Throws std::runtime_error on a cuBLASLt failure.
  void run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUdeviceptr scale_a, CUdeviceptr scale_b,
           CUstream stream) const;

 private:
  void set(cublasLtMatmulDescAttributes_t attribute, const void* value, std::size_t bytes,
           const char* what);

  static constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;
  Kind kind_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;
  cublasLtMatrixLayout_t b_ = nullptr;
  cublasLtMatrixLayout_t d_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  CUdeviceptr workspace_ = 0;
};

}  // namespace cutune::gemm_fp8
