// The Python package's GEMM side (cutune.gemm, Runtime.gemm): tuned Hopper GEMM kernels of the
// built-in families (gemm, and gemm_fp8 for fp8 tensors) launched on device pointers, with only
// standard types at its surface so that the nanobind module (bindings/gemm_module.cpp) builds from
// this header alone. Built into libcutune_python_gemm, which links the CUDA driver: the package
// imports it only when a GEMM is asked for, so that `import cutune` works on machines without one.
//
// One GemmRunner per (store, device); call it from one thread at a time (the package holds the
// GIL). Throws std::invalid_argument for a problem the kernel cannot run (or an unknown family)
// and std::runtime_error for CUDA failures, a missing compiler, kernel source or CUTLASS headers.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cutune::python {

// The shape and types of one GEMM: D (m x n) = A (m x k) x B, row-major, B k x n (b_transposed
// false) or n x k (true); dtype 0 bf16, 1 fp16.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  int dtype = 0;
  bool b_transposed = false;
  auto operator<=>(const GemmShape&) const = default;
};

// One fp8 GEMM: D (m x n bf16) = A (m x k) x B^T (B n x k), A and B of their formats ("e4m3" or
// "e5m2"), each sum scaled as `scaling` says ("tensor", "row_col" or "block";
// cutune/gemm_types.hpp's gemm_fp8::Fp8Operands says where each scale lives).
struct Fp8Shape {
  std::int64_t m = 0, n = 0, k = 0;
  std::string scaling;
  std::string a_format = "e4m3", b_format = "e4m3";
  auto operator<=>(const Fp8Shape&) const = default;
};

class GemmRunner {
 public:
  // Loads kernels into the primary context of CUDA device `device` (made current on this thread
  // when none is: the one PyTorch uses). `db`: the store; empty: none (default configs).
  GemmRunner(const std::string& db, int device);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  int device() const;
  // Enqueues D = A x B on `stream` (a CUstream; 0 the legacy one). The first call for a shape
  // looks its config up (store winner, else default) and loads it; later calls are a map lookup.
  void launch(const GemmShape& shape, std::uint64_t a, std::uint64_t b, std::uint64_t d,
              std::uintptr_t stream);
  // The fp8 GEMM of `shape` on device pointers (the scales' too), as launch() does; the fp8
  // family is made on the first call.
  void launch_fp8(const Fp8Shape& shape, std::uint64_t a, std::uint64_t b, std::uint64_t d,
                  std::uint64_t scale_a, std::uint64_t scale_b, std::uintptr_t stream);
  // {"family", "problem", "config", "config_name", "origin", "warnings"} of the shape's kernel,
  // or of a problem text's of family "gemm" or "gemm_fp8" ("m=128,n=256,k=64,dtype=bf16", as
  // `cutune tune gemm --problem`).
  std::string describe(const GemmShape& shape);
  std::string describe(const std::string& family, const std::string& problem);
  // The kernel's time in ms for each of `repetitions` launches on `stream`, by the tune's worker's
  // one timing (backend/cuda/launch_timer.hpp): events around each launch, the L2 flushed before
  // each unless `flush` is false. Throws std::runtime_error naming a driver call that failed.
  std::vector<double> time_launches(const GemmShape& shape, std::uint64_t a, std::uint64_t b,
                                    std::uint64_t d, bool flush, int repetitions,
                                    std::uintptr_t stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune::python
