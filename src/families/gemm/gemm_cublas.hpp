// cuBLASLt on a problem of the Hopper GEMM family: the reference every GEMM config is checked
// against and the yardstick it is timed against, in the device worker's GEMM mode and in
// bench/gpu (gemm_peer_bench, graph_timer_check, gemm_bench). Algorithm 0 is cuBLASLt's first
// heuristic choice with a 64 MiB workspace, as torch.matmul runs it, so the figures compare with
// PyTorch's; gemm_bench also times the next few. Needs a current CUDA context (the primary one:
// cuBLASLt runs on the runtime API) and links CUDA::cublasLt. Plain C++17 (nvcc reads it).
#pragma once

#include <cublasLt.h>
#include <cuda.h>

#include <cstddef>
#include <vector>

#include "gemm/gemm_problem.hpp"

namespace cutune::gemm {

// Throws std::runtime_error "<library> <what> failed with status N" unless `status` is success
// (cuBLAS and cuBLASLt share the status type).
void check_cublas(cublasStatus_t status, const char* library, const char* what);

class CublasGemm {
 public:
  // Enough workspace for cuBLASLt's split-K algorithms.
  static constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;

  // Describes D = A * B for `problem` and asks cuBLASLt for its first `algorithms` heuristic
  // choices (it may offer fewer). Throws std::runtime_error naming the cuBLASLt or driver call
  // that failed, or when it offers no algorithm.
  explicit CublasGemm(const GemmProblem& problem, int algorithms = 1);
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;
  ~CublasGemm();

  // How many algorithms cuBLASLt offered (at least 1).
  int algorithms() const { return static_cast<int>(heuristics_.size()); }

  // Enqueues D = A * B on `stream` with algorithm `algorithm` (0: the heuristic's first choice;
  // capturable in a CUDA graph). Throws std::runtime_error on a cuBLASLt failure.
  void run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream, int algorithm = 0) const;

 private:
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;
  cublasLtMatrixLayout_t b_ = nullptr;
  cublasLtMatrixLayout_t d_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> heuristics_;
  CUdeviceptr workspace_ = 0;
};

}  // namespace cutune::gemm
