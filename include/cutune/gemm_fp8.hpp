// The built-in fp8 Hopper GEMM (src/families/gemm_fp8) as a runtime family: tuned fp8 GEMM kernels
// with their scales, ready to launch on device buffers.
//
//   cuCtxSetCurrent(context);  // kernels load into the context current when the family is made
//   cutune::Runtime runtime({.store = cutune::Store::default_path()});
//   runtime.add_family(cutune::gemm_fp8_family());
//   const auto query = runtime.query(
//       "gemm_fp8", cutune::Problem::parse(cutune::gemm_fp8_problem_text(2048, 4096, 4096,
//       "block")));
//   const cutune::gemm_fp8::Fp8Operands operands{
//       .a = a, .b = b, .d = d, .scale_a = scale_a, .scale_b = scale_b};
//   runtime.get(query).as<cutune::GemmFp8RuntimeKernel>().launch(stream, operands);
//
// Each config compiles (nvcc, through the tuner's Fp8Compiler: the same libraries and disk cache
// as `cutune tune gemm_fp8`) to a shared library holding the kernel and the host code that builds
// its CUTLASS parameters, loaded with dlopen; so the store's winners of `cutune tune gemm_fp8` are
// found under the same key (family "gemm_fp8", the kernel source's hash, the device, the
// toolchain). A launch's parameters (TMA descriptors) depend on the buffers' addresses: a kernel
// keeps the prepared launches of its last few operand sets, so launching again on the same
// buffers prepares nothing. Needs cutune_family_gemm_fp8_runtime, a build with the CUDA backend,
// and an sm_90 GPU to launch.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cutune/gemm.hpp"
#include "cutune/gemm_types.hpp"
#include "cutune/runtime.hpp"

namespace cutune {

// One config of the fp8 GEMM family loaded for one problem: D (m x n, bf16) = A (m x k) times B^T
// (B n x k), each e4m3 or e5m2 as the problem says, each fp32 sum scaled as the problem's scaling
// says (gemm_fp8::Fp8Operands).
class GemmFp8RuntimeKernel final : public Kernel {
 public:
  // Prepared launches kept per kernel (most recently used first), as the bf16 kernel keeps.
  static constexpr std::size_t kCachedLaunches = GemmRuntimeKernel::kCachedLaunches;

  struct State;  // gemm_fp8_family.cpp: the library, the problem and config, the launches
  GemmFp8RuntimeKernel(Config config, KernelOrigin origin, std::unique_ptr<State> state);
  ~GemmFp8RuntimeKernel() override;

  // Enqueues the GEMM on `stream` (a stream of the family's context), preparing it first for
  // operands not among the cached ones; each prepared launch has a workspace of its own.
  // Thread-safe. Throws std::runtime_error when the library refuses the problem or the launch.
  void launch(CUstream stream, const gemm_fp8::Fp8Operands& operands) const;

  // The config's name, as `cutune show` prints it (e.g. 128x128x128_s4_c1x1_coop_rn1).
  std::string config_name() const;
  // How many launches were prepared so far.
  std::size_t prepared_count() const;

 private:
  std::unique_ptr<State> state_;
};

// The fp8 GEMM family (name "gemm_fp8", version the kernel source's hash), loaded into the CUDA
// context current on the calling thread now (background tunes load into it too), so one must be;
// the device must be sm_90 for launches to run. Problems: m, n, k, scaling (tensor when missing |
// row_col | block), a_format and b_format (e4m3 when missing | e5m2); query() rejects a problem the
// kernel cannot run (k not a multiple of 16, n of 8; under block scaling k not a multiple of 128).
// Tunes measure in the CUDA backend's worker. Throws std::runtime_error without a current context
// or when nvcc, the kernel source or the CUTLASS headers are missing.
Family gemm_fp8_family(GemmFamilyOptions options = {});

// The problem text of one fp8 GEMM ("k=4096,m=2048,n=4096,scaling=block", with a_format=e5m2 or
// b_format=e5m2 where an operand is not e4m3), as `cutune tune gemm_fp8 --problem` takes it: what
// cutune.gemm looks up for fp8 tensors. Throws nothing; a scaling or format the family does not
// know is refused when the problem is resolved.
std::string gemm_fp8_problem_text(std::int64_t m, std::int64_t n, std::int64_t k,
                                  const std::string& scaling, const std::string& a_format = "e4m3",
                                  const std::string& b_format = "e4m3");

}  // namespace cutune
