// Shared by the tests of the GEMM runtime families (cutune/gemm.hpp, cutune/gemm_fp8.hpp): the
// refusal of a family made without a CUDA context, and the GPU tests' fixture and bf16 outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "cutune/gemm.hpp"
#include "runtime/cuda_testing.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {

inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "(no exception)";
}

// `make` (a family's function, called without a current context) throws std::runtime_error
// "`who`: no CUDA context is current on this thread ...".
inline void expect_refused_without_context(const std::function<void()>& make,
                                           const std::string& who) {
  const std::string message = message_of(make);
  EXPECT_NE(message.find(who + ": no CUDA context is current on this thread"), std::string::npos)
      << message;
  EXPECT_THROW(make(), std::runtime_error);
}

inline float from_bf16(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// `count` bf16 elements of device memory, all NaN (0xFFFF): an output element a kernel skips
// fails any check.
inline CUdeviceptr nan_bf16(std::size_t count) {
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAlloc(&p, count * 2), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD16(p, 0xFFFF, count), CUDA_SUCCESS);
  return p;
}

// Device 0's primary context current, the family's compile cache in a folder of the test's, and a
// runtime without a store that fails the test on any warning but the one every shape gets there
// (the untuned-shape rule's: "... is untuned; ... using the family's default config").
class GemmRuntimeTest : public CudaContextTest {
 protected:
  void SetUp() override {
    CudaContextTest::SetUp();
    if (HasFatalFailure()) return;
    options_.compile.cache_dir = cache_.path();
  }

  static RuntimeOptions runtime_options() {
    RuntimeOptions o;
    o.policy = Policy::default_now;
    o.on_warning = [](const std::string& w) {
      if (w.find(" is untuned; ") == std::string::npos) ADD_FAILURE() << w;
    };
    return o;
  }

  TempDir cache_;
  GemmFamilyOptions options_;
};

}  // namespace cutune::testing
