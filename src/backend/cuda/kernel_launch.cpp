#include "kernel_launch.hpp"

namespace cutune::cuda {

CUresult launch_kernel(CUfunction function, const KernelGeometry& geometry, CUstream stream,
                       void** params) {
  CUlaunchConfig config{};
  config.gridDimX = geometry.grid[0];
  config.gridDimY = geometry.grid[1];
  config.gridDimZ = geometry.grid[2];
  config.blockDimX = geometry.block[0];
  config.blockDimY = geometry.block[1];
  config.blockDimZ = geometry.block[2];
  config.sharedMemBytes = geometry.shared_bytes;
  config.hStream = stream;
  CUlaunchAttribute cluster{};
  if (geometry.cluster != std::array<std::uint32_t, 3>{1, 1, 1}) {
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = geometry.cluster[0];
    cluster.value.clusterDim.y = geometry.cluster[1];
    cluster.value.clusterDim.z = geometry.cluster[2];
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  return cuLaunchKernelEx(&config, function, params, nullptr);
}

}  // namespace cutune::cuda
