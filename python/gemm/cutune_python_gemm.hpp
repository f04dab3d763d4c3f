// The Python package's GEMM side (cutune.gemm, Runtime.gemm): tuned Hopper GEMM kernels of the
// built-in family launched on device pointers, with only standard types at its surface so that
// the nanobind module (bindings/gemm_module.cpp) builds from this header alone. Built into
// libcutune_python_gemm, which links the CUDA driver: the package imports it only when a GEMM is
// asked for, so that `import cutune` works on machines without one.
//
// One GemmRunner per (store, device); call it from one thread at a time (the package holds the
// GIL). Throws std::invalid_argument for a problem the kernel cannot run and std::runtime_error
// for CUDA failures, a missing compiler or CUTLASS headers.
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
  // {"family", "problem", "config", "config_name", "origin", "warnings"} of the shape's kernel,
  // or of a problem text's ("m=128,n=256,k=64,dtype=bf16", as `cutune tune gemm --problem`).
  std::string describe(const GemmShape& shape);
  std::string describe(const std::string& problem);
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
