// Driver-API helpers shared by the CUDA families (src/families/spec/cuda, src/families/gemm).
#pragma once

#include <cuda.h>
#include <fmt/format.h>

#include <string>

namespace cutune::runtime {

// The CUresult's name ("CUDA_ERROR_INVALID_VALUE"), or its number when the driver has none.
inline std::string error_text(CUresult code) {
  const char* name = nullptr;
  cuGetErrorName(code, &name);
  return name != nullptr ? name : fmt::format("CUresult {}", static_cast<int>(code));
}

// Makes `context` current on this thread for a scope (a background tune's thread has none).
class ContextScope {
 public:
  explicit ContextScope(CUcontext context) {
    CUcontext current = nullptr;
    cuCtxGetCurrent(&current);
    pushed_ = current != context && cuCtxPushCurrent(context) == CUDA_SUCCESS;
  }
  ~ContextScope() {
    CUcontext ignored;
    if (pushed_) cuCtxPopCurrent(&ignored);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace cutune::runtime
