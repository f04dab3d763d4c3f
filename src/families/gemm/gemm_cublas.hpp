// cuBLASLt on a problem of the Hopper GEMM family: the reference every GEMM config is checked
// against and the yardstick it is timed against, in the device worker's GEMM mode and in
// bench/gpu's gemm_peer_bench. The algorithm is cuBLASLt's first heuristic choice with a 64 MiB
// workspace, as torch.matmul runs it, so the figures compare with PyTorch's. Needs a current CUDA
// context (the primary one: cuBLASLt runs on the runtime API) and links CUDA::cublasLt.
#pragma once

#include <cublasLt.h>
#include <cuda.h>

#include <cstddef>

#include "backend/cuda/worker_host.hpp"
#include "gemm/gemm_problem.hpp"

namespace cutune::gemm {

class CublasGemm {
 public:
  // Enough workspace for cuBLASLt's split-K algorithms.
  static constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;

  // Describes D = A * B for `problem` and asks cuBLASLt for its algorithm. Throws
  // std::runtime_error naming the cuBLASLt call that failed, or when it offers no algorithm.
  explicit CublasGemm(const GemmProblem& problem);
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;
  ~CublasGemm();

  // Enqueues D = A * B on `stream` (capturable in a CUDA graph). Throws std::runtime_error on a
  // cuBLASLt failure.
  void run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream) const;

 private:
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;
  cublasLtMatrixLayout_t b_ = nullptr;
  cublasLtMatrixLayout_t d_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  cuda::worker::DeviceBuffer workspace_;
};

}  // namespace cutune::gemm
