// Compiles fp8 GEMM configs to shared libraries (gemm_fp8_abi.hpp) with nvcc for sm_90a, through
// the CUDA backend's compile pool and its disk cache; needs nvcc and the CUTLASS headers, no GPU.
#pragma once

#include <future>
#include <memory>
#include <string>

#include "cutune/cuda/compile.hpp"
#include "cutune/gemm_types.hpp"
#include "gemm_fp8/gemm_fp8_problem.hpp"

namespace cutune {

class Fp8Compiler {
 public:
  // Compiles for problems of `kind` (the problem fields a library depends on). Throws
  // std::runtime_error when the kernel source, its headers or the CUTLASS headers are missing.
  // options.source empty: $CUTUNE_GEMM_FP8_SOURCE, else this build's device/hopper_gemm_fp8.cu.
  Fp8Compiler(gemm_fp8::LibraryKind kind, GemmCompileOptions options = {});
  ~Fp8Compiler();

  // Queues the compile of `config` and returns at once; CompileResult::cubin is the library.
  std::shared_future<cuda::CompileResult> submit(const gemm_fp8::Fp8Config& config);
  cuda::CompileRequest request(const gemm_fp8::Fp8Config& config) const;
  // "nvcc <build>; sm_90a -std=c++17 -O3 ...": part of the store key.
  std::string toolchain();
  // The hash of the compiled text (the kernel source and the two headers prepended to it).
  std::string source_version() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Fp8Compiler::source_version() without the compiler (no CUTLASS headers needed). Throws
// std::runtime_error when the source cannot be read.
std::string gemm_fp8_source_version(const GemmCompileOptions& options = {});

}  // namespace cutune
