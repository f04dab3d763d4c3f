// One kernel launch through the driver API, as the device worker measures a kernel and as a
// program's runtime (CudaKernel in cutune/runtime.hpp) then runs it: the same grid, block,
// dynamic shared memory and thread-block cluster, so that what runs is what was measured.
// Any thread with a CUDA context current; throws nothing (the driver's result is returned).
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>

namespace cutune::cuda {

struct KernelGeometry {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::array<std::uint32_t, 3> cluster{1, 1, 1};  // {1, 1, 1}: no cluster attribute is passed
  std::uint32_t shared_bytes = 0;                 // dynamic shared memory
};

// Enqueues `function` on `stream` with cuLaunchKernelEx; `params` as it takes them (a pointer to
// each argument). Returns its CUresult.
CUresult launch_kernel(CUfunction function, const KernelGeometry& geometry, CUstream stream,
                       void** params);

}  // namespace cutune::cuda
