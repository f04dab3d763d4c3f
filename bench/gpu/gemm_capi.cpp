// libcutune_gemm_capi: a tuned Hopper GEMM config launched from another program's process through a
// C ABI, so that bench/gpu/peers.py times it with ctypes exactly as it times torch, Triton and
// Helion (same tensors, same timer, same check). It is GemmLaunch
// (src/families/gemm/gemm_launch.cpp) behind three functions: nothing here knows how to launch the
// kernel.
//
//   void* cutune_gemm_open(const char* cubin, const char* config, int64_t m, int64_t n, int64_t k,
//                          int dtype, int b_layout, uint64_t a, uint64_t b, uint64_t d,
//                          char* error, size_t error_bytes);
//     cubin: a cubin of device/hopper_gemm.cu compiled for `config` (gemm_peer_bench prints its
//     path); config: its name as gemm::to_string writes it ("64x128x64_s8_c2x1_ping_rn8_k1");
//     dtype 0 bf16, 1 fp16; b_layout 0: B is K x N, 1: B is N x K; a, b, d: device pointers of
//     row-major A (m x k), B and D (m x n). Needs a current CUDA context (the primary one, which
//     torch makes current), owns the module and any split-K workspace. Returns a handle, or NULL
//     with the reason in `error` (truncated to error_bytes, NUL-terminated).
//   int cutune_gemm_launch(void* handle, void* stream, char* error, size_t error_bytes);
//     Enqueues D = A * B on `stream` (a CUstream / cudaStream_t; capturable). 0, or -1 with the
//     reason in `error`.
//   void cutune_gemm_close(void* handle);  (NULL is a no-op)
//
// Arguments are checked before the driver is touched, so a wrong call fails the same way with or
// without a GPU. No exception crosses the ABI.
#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_problem.hpp"

namespace {

using namespace cutune::gemm;

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(result, &name);
  throw std::runtime_error(std::string(what) + " failed: " + (name != nullptr ? name : "unknown"));
}

struct Handle {
  CUmodule module = nullptr;
  CUdeviceptr workspace = 0;
  std::unique_ptr<GemmLaunch> launch;
  ~Handle() {
    if (workspace != 0) cuMemFree(workspace);
    if (module != nullptr) cuModuleUnload(module);
  }
};

void report(const std::exception& error, char* out, std::size_t bytes) {
  if (out == nullptr || bytes == 0) return;
  std::strncpy(out, error.what(), bytes - 1);
  out[bytes - 1] = '\0';
}

// The problem and config, or std::invalid_argument naming the argument that is wrong.
std::pair<GemmProblem, GemmConfig> checked_arguments(const char* cubin, const char* config,
                                                     std::int64_t m, std::int64_t n, std::int64_t k,
                                                     int dtype, int b_layout, std::uint64_t a,
                                                     std::uint64_t b, std::uint64_t d) {
  if (cubin == nullptr || *cubin == '\0') throw std::invalid_argument("cubin: no path");
  if (config == nullptr) throw std::invalid_argument("config: no name");
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("m, n, k: each must be >= 1");
  if (dtype != 0 && dtype != 1) throw std::invalid_argument("dtype: 0 (bf16) or 1 (fp16)");
  if (b_layout != 0 && b_layout != 1) {
    throw std::invalid_argument("b_layout: 0 (K x N) or 1 (N x K)");
  }
  if (a == 0 || b == 0 || d == 0) throw std::invalid_argument("a, b, d: null device pointer");
  GemmProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.dtype = dtype == 0 ? DType::bf16 : DType::fp16;
  problem.b_layout = b_layout == 0 ? BLayout::k_by_n : BLayout::n_by_k;
  const GemmConfig parsed = parse_config(config);
  // The shared memory limit is the device's, checked again by GemmLaunch.
  if (const auto reasons = violations(parsed, problem, 1 << 30); !reasons.empty()) {
    throw std::invalid_argument("config " + std::string(config) + ": " + joined(reasons));
  }
  return {problem, parsed};
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void* cutune_gemm_open(
    const char* cubin, const char* config, std::int64_t m, std::int64_t n, std::int64_t k,
    int dtype, int b_layout, std::uint64_t a, std::uint64_t b, std::uint64_t d, char* error,
    std::size_t error_bytes) {
  try {
    const auto [problem, parsed] =
        checked_arguments(cubin, config, m, n, k, dtype, b_layout, a, b, d);
    CUcontext context = nullptr;
    check(cuCtxGetCurrent(&context), "cuCtxGetCurrent");
    if (context == nullptr)
      throw std::runtime_error("no current CUDA context (use torch.cuda first)");
    CUdevice device = 0;
    check(cuCtxGetDevice(&device), "cuCtxGetDevice");
    auto handle = std::make_unique<Handle>();
    check(cuModuleLoad(&handle->module, cubin), "cuModuleLoad");
    if (const std::size_t bytes = workspace_bytes(parsed, problem); bytes > 0) {
      check(cuMemAlloc(&handle->workspace, bytes), "cuMemAlloc of the split-K workspace");
    }
    handle->launch = std::make_unique<GemmLaunch>(GemmKernel::load(handle->module), problem, parsed,
                                                  GemmOperands{a, b, d, handle->workspace}, device);
    return handle.release();
  } catch (const std::exception& caught) {
    report(caught, error, error_bytes);
    return nullptr;
  }
}

__attribute__((visibility("default"))) int cutune_gemm_launch(void* handle, void* stream,
                                                              char* error,
                                                              std::size_t error_bytes) {
  try {
    if (handle == nullptr) throw std::invalid_argument("handle: null");
    static_cast<Handle*>(handle)->launch->launch(static_cast<CUstream>(stream));
    return 0;
  } catch (const std::exception& caught) {
    report(caught, error, error_bytes);
    return -1;
  }
}

__attribute__((visibility("default"))) void cutune_gemm_close(void* handle) {
  delete static_cast<Handle*>(handle);
}

}  // extern "C"
