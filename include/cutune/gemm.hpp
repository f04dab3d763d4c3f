// The built-in Hopper GEMM (src/families/gemm) as a runtime family: tuned GEMM kernels, ready to
// launch on device buffers.
//
//   cuCtxSetCurrent(context);  // kernels load into the context current when the family is made
//   cutune::Runtime runtime({.store = cutune::Store::default_path()});
//   runtime.add_family(cutune::gemm_family());
//   const auto query = runtime.query("gemm", cutune::Problem::parse("m=2048,n=4096,k=4096"));
//   const cutune::gemm::GemmOperands operands{.a = a, .b = b, .d = d, .workspace = 0};
//   runtime.get(query).as<cutune::GemmRuntimeKernel>().launch(stream, operands);
//
// Configs are compiled by nvcc through the GEMM evaluator's compiler (GemmCompiler: same cubins,
// same disk cache as `cutune tune gemm`), so the store's winners of `cutune tune gemm` are found
// under the same key (family "gemm", the kernel source's hash, the device, the toolchain). The
// launch binds operands through TMA tensor maps, which depend on the buffers' addresses: a kernel
// keeps the prepared launches (gemm::GemmLaunch) of the last few operand sets, so launching again
// on the same buffers encodes nothing. Needs cutune_family_gemm_runtime, a build with the CUDA
// backend, and an sm_90 GPU to launch.
//
// The kernel's own types (gemm::GemmConfig, GemmProblem, GemmKernel, GemmLaunch) are declared
// here only: the accessors that return them serve the family's benchmarks and tests, which
// include its headers from src/families/gemm. A program needs none of them.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "cutune/gemm_types.hpp"
#include "cutune/runtime.hpp"

namespace cutune {

namespace gemm {
struct GemmConfig;   // src/families/gemm/gemm_problem.hpp
struct GemmProblem;  // src/families/gemm/gemm_problem.hpp
struct GemmKernel;   // src/families/gemm/gemm_launch.hpp
class GemmLaunch;    // src/families/gemm/gemm_launch.hpp
}  // namespace gemm

// One config of the GEMM family loaded for one problem: D (m x n) = A (m x k) x B, all of the
// problem's dtype, row-major, B as the problem's b_layout says (default k x n).
class GemmRuntimeKernel final : public Kernel {
 public:
  // Prepared launches kept per kernel (most recently used first).
  static constexpr std::size_t kCachedLaunches = 8;

  // `module` keeps the cubin loaded while the kernel lives. `context` and `device`: where it was
  // loaded (made current while a launch is prepared).
  GemmRuntimeKernel(Config config, KernelOrigin origin, std::shared_ptr<void> module,
                    gemm::GemmKernel functions, gemm::GemmProblem problem,
                    gemm::GemmConfig gemm_config, CUcontext context, CUdevice device);
  ~GemmRuntimeKernel() override;

  // Enqueues the GEMM (and split-K's reduction) on `stream`. A split-K config given no workspace
  // (operands.workspace == 0) uses one of its own, allocated on first need and shared by every
  // launch of this kernel: pass your own (workspace_bytes()) to run it on two streams at once.
  // Throws std::runtime_error when the launch cannot be prepared or is refused.
  void launch(CUstream stream, const gemm::GemmOperands& operands) const;
  // The prepared launch for `operands`: from the cache, else built (tensor maps encoded) and
  // cached. Thread-safe.
  std::shared_ptr<const gemm::GemmLaunch> prepare(const gemm::GemmOperands& operands) const;

  // The kernel's problem, config and entry points (see the top of this file).
  const gemm::GemmProblem& problem() const;
  const gemm::GemmConfig& gemm_config() const;
  const gemm::GemmKernel& functions() const;
  // Bytes of fp32 workspace split-K needs; 0 without split-K.
  std::size_t workspace_bytes() const;
  // How many launches were prepared (tensor maps encoded) so far.
  std::size_t prepared_count() const;

 private:
  struct State;  // gemm_family.cpp: the module, the kernel's types, the cache of launches
  std::unique_ptr<State> state_;
};

struct GemmFamilyOptions {
  // How configs are compiled, for loads and for tunes (one cache).
  GemmCompileOptions compile = {};
  // The evaluator of the runtime's tunes. Its `compile` is replaced by the one above and its
  // `devices` by tune_devices.
  GemmEvaluatorOptions tune = {};
  std::vector<int> tune_devices = {};  // CUDA ordinals; empty: the family's context's device
};

// The GEMM family (name "gemm", version the kernel source's hash). Kernels load into the CUDA
// context current on the calling thread now (background tunes load into it too), so one must
// be; the device must be sm_90 for launches to run. Problems: m, n, k, dtype (filled with bf16
// when missing), optionally b_layout; query() rejects a problem the kernel cannot run (k or n
// not a multiple of 8). Tunes measure in the CUDA backend's worker (GemmEvaluator). Throws
// std::runtime_error without a current context or when nvcc, the kernel source or the CUTLASS
// headers are missing.
Family gemm_family(GemmFamilyOptions options = {});

}  // namespace cutune
