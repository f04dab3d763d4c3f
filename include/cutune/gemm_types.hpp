// The plain data of the built-in Hopper GEMM families (bf16/fp16 and fp8) that a program hands to
// them: the device buffers of one launch and how configs are compiled and measured.
// cutune/gemm.hpp and cutune/gemm_fp8.hpp are the APIs that take them; this header is separate
// because the family's own launcher reads it too, and nvcc compiles that launcher in C++17
// (bench/gpu/gemm_bench.cu): plain C++17, <cuda.h> for the pointer type. Throws nothing (types
// only); any thread may use them.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cutune {

namespace gemm {

// Device buffers: A (m x k), B (k x n or n x k), D (m x n), all of the problem's dtype, and an
// fp32 workspace of the config's workspace bytes (may be 0 without split-K).
struct GemmOperands {
  CUdeviceptr a = 0;
  CUdeviceptr b = 0;
  CUdeviceptr d = 0;
  CUdeviceptr workspace = 0;
};

}  // namespace gemm

namespace gemm_fp8 {

// Device buffers of one fp8 GEMM (cutune/gemm_fp8.hpp): A (m x k, row-major), B (n x k,
// row-major: the transpose of the k x n operand, "TN"), both of the problem's fp8 formats, D (m x n
// bf16, row-major), and the fp32 scales of the problem's scaling: tensor: scale_a[1], scale_b[1];
// row_col: scale_a[m], scale_b[n]; block: scale_a[k/128][m] (k-block major) and
// scale_b[k/128][ceil(n/128)].
struct Fp8Operands {
  CUdeviceptr a = 0, b = 0, d = 0, scale_a = 0, scale_b = 0;
};

}  // namespace gemm_fp8

struct GemmCompileOptions {
  // Cubins and compiler logs. Empty: $CUTUNE_CACHE_DIR/cuda, else $XDG_CACHE_HOME/cutune/cuda,
  // else ~/.cache/cutune/cuda.
  std::filesystem::path cache_dir;
  unsigned jobs = 0;  // concurrent compiles; 0: one per core
  std::chrono::milliseconds time_limit{std::chrono::seconds(300)};
  std::string nvcc = "nvcc";
  // Empty: $CUTUNE_GEMM_SOURCE / $CUTUNE_CUTLASS_INCLUDE, else the paths of this build's tree.
  // The source's grandparent folder must hold gemm_rules.hpp and gemm_schedule.hpp (as
  // src/families/gemm does).
  std::filesystem::path source;
  std::filesystem::path cutlass_include;
  std::string arch = "sm_90a";
};

struct GemmEvaluatorOptions {
  GemmCompileOptions compile;
  std::vector<int> devices{0};  // CUDA ordinals; one worker each, candidates spread over them
  // Empty: $CUTUNE_CUDA_WORKER, else the cutune-cuda-worker built with the CUDA backend.
  std::filesystem::path worker;
  std::uint64_t seed = 1;  // input values
  double tolerance = -1;   // max relative error; negative: the dtype's default
  double budget_ms = 50;   // timed repetitions per candidate; retime() takes five times more
  int min_reps = 10;
  int max_reps = 500;
  std::chrono::milliseconds watchdog{std::chrono::seconds(20)};
};

}  // namespace cutune
