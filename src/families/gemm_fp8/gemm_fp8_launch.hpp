// Host side of the fp8 GEMM family: loads a config's shared library (gemm_fp8_abi.hpp) and runs
// it on device buffers. Needs a current CUDA context (the library's CUDA runtime joins it).
#pragma once

#include <cuda.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cutune/gemm_types.hpp"  // Fp8Operands
#include "gemm_fp8/gemm_fp8_abi.hpp"
#include "gemm_fp8/gemm_fp8_problem.hpp"

namespace cutune::gemm_fp8 {

// The four entry points of one loaded library; the library stays loaded for the process's life
// (a CUDA runtime inside it cannot be unloaded safely while its context lives).
struct Fp8Library {
  CutuneGemmFp8WorkspaceFn workspace = nullptr;
  CutuneGemmFp8PrepareFn prepare = nullptr;
  CutuneGemmFp8LaunchFn launch = nullptr;
  CutuneGemmFp8ReleaseFn release = nullptr;

  // dlopens `path` (once per path) and looks the entry points up. Throws std::runtime_error with
  // dlerror's reason or the missing symbol's name.
  static Fp8Library load(const std::filesystem::path& path);
};

// One config bound to one problem and its buffers, prepared once and launched many times.
class Fp8Launch {
 public:
  // Allocates the library's workspace and prepares the GEMM on `sm_count` SMs. Throws
  // std::runtime_error with the library's reason (an unsupported problem, a failed CUDA call).
  Fp8Launch(const Fp8Library& library, const Fp8Problem& problem, const Fp8Operands& operands,
            int sm_count);
  Fp8Launch(Fp8Launch&&) noexcept;
  Fp8Launch& operator=(Fp8Launch&&) noexcept;
  ~Fp8Launch();

  // Enqueues the GEMM on `stream`. Throws std::runtime_error naming the CUDA error.
  void launch(CUstream stream) const;

 private:
  Fp8Library library_;
  void* handle_ = nullptr;
  CUdeviceptr workspace_ = 0;
};

}  // namespace cutune::gemm_fp8
