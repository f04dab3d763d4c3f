// cuBLAS's classic API on a problem of the Hopper GEMM family, as torch.matmul calls it for a plain
// bf16/fp16 mm: cublasGemmEx with CUBLAS_COMPUTE_32F and CUBLAS_GEMM_DEFAULT_TENSOR_OP, fp32
// alpha/beta, a 32 MiB workspace (cuBLAS's recommendation on Hopper, torch's default there). A
// column beside gemm_cublas.hpp's cuBLASLt heuristic #1 in gemm_peer_bench and graph_timer_check,
// so that one C++ process shows whether torch's cuBLAS and our cuBLASLt call differ in algorithm.
// Needs the primary context current (cuBLAS runs on the runtime API); links CUDA::cublas.
#pragma once

#include <cublas_v2.h>
#include <cuda.h>

#include <cstddef>

#include "backend/cuda/worker_host.hpp"
#include "gemm/gemm_problem.hpp"

namespace cutune::bench {

class CublasGemmEx {
 public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

  // Throws std::runtime_error naming the cuBLAS call that failed.
  explicit CublasGemmEx(const gemm::GemmProblem& problem);
  CublasGemmEx(const CublasGemmEx&) = delete;
  CublasGemmEx& operator=(const CublasGemmEx&) = delete;
  ~CublasGemmEx();

  // Enqueues D = A * B on `stream` (capturable in a CUDA graph). Throws std::runtime_error on a
  // cuBLAS failure.
  void run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream) const;

 private:
  gemm::GemmProblem problem_;
  cublasHandle_t handle_ = nullptr;
  cuda::worker::DeviceBuffer workspace_;
};

}  // namespace cutune::bench
