// Shared by the runtime's GPU tests: a fixture with device 0's primary context current on the
// test's thread, where the runtime's CUDA families load their kernels.
#pragma once

#include <cuda.h>
#include <gtest/gtest.h>

namespace cutune::testing {

class CudaContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    CUdevice device;
    ASSERT_EQ(cuDeviceGet(&device, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&context_, device), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(context_), CUDA_SUCCESS);
  }

  CUcontext context_ = nullptr;
};

}  // namespace cutune::testing
