// Host side of the Hopper GEMM family: launches a compiled configuration of
// device/hopper_gemm.cu through the CUDA driver API. Nothing here is compiled per configuration:
// the tensor maps, grid, cluster and shared memory come from (problem, config) at run time, so a
// tuner only compiles the device source. Needs a current CUDA context.
#pragma once

#include <cuda.h>

#include "cutune/gemm_types.hpp"
#include "gemm/gemm_problem.hpp"

namespace cutune::gemm {

// Entry points of every cubin built from device/hopper_gemm.cu.
inline constexpr const char* kGemmSymbol = "cutune_gemm";
inline constexpr const char* kSplitKReduceSymbol = "cutune_gemm_splitk_reduce";

// The entry points of one loaded configuration.
struct GemmKernel {
  CUfunction gemm = nullptr;
  CUfunction splitk_reduce = nullptr;

  // Looks both entry points up in `module`; throws std::runtime_error naming a missing one.
  static GemmKernel load(CUmodule module);
};

// One configuration bound to one problem and its buffers, prepared once and launched many times.
class GemmLaunch {
 public:
  // Checks violations(config, problem), builds the tensor maps, raises the kernel's shared memory
  // limit and sizes the persistent grid to the clusters that fit on `device` at once. Throws
  // std::runtime_error naming the rule or driver call that failed.
  GemmLaunch(const GemmKernel& kernel, const GemmProblem& problem, const GemmConfig& config,
             const GemmOperands& operands, CUdevice device);

  // Enqueues the GEMM (and, with split-K, the reduction) on `stream`. Throws on a launch error.
  void launch(CUstream stream) const;

  int grid_blocks() const { return grid_blocks_; }
  int shared_bytes() const { return shared_bytes_; }

 private:
  GemmKernel kernel_;
  GemmProblem problem_;
  GemmConfig config_;
  GemmOperands operands_;
  CUtensorMap tensor_a_{};
  CUtensorMap tensor_b_{};
  CUtensorMap tensor_d_{};  // the TMA-store epilogue; unused with split-K
  int grid_blocks_ = 0;
  int shared_bytes_ = 0;
  int reduce_blocks_ = 0;
};

}  // namespace cutune::gemm
