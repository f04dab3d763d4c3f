#include "gemm_fp8/gemm_fp8_launch.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace cutune::gemm_fp8 {
namespace {

template <typename Fn>
Fn symbol(void* library, const char* name, const std::filesystem::path& path) {
  void* found = dlsym(library, name);
  if (found == nullptr) {
    throw std::runtime_error(path.string() + " has no " + name + " (not a gemm_fp8 library?)");
  }
  return reinterpret_cast<Fn>(found);
}

}  // namespace

Fp8Library Fp8Library::load(const std::filesystem::path& path) {
  static std::mutex mutex;
  static std::map<std::filesystem::path, Fp8Library> loaded;
  std::lock_guard lock(mutex);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;
  // RTLD_LOCAL: every config's library defines the same entry points.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw std::runtime_error("dlopen " + path.string() + ": " + dlerror());
  Fp8Library out;
  out.workspace = symbol<CutuneGemmFp8WorkspaceFn>(library, CUTUNE_GEMM_FP8_WORKSPACE_SYMBOL, path);
  out.prepare = symbol<CutuneGemmFp8PrepareFn>(library, CUTUNE_GEMM_FP8_PREPARE_SYMBOL, path);
  out.launch = symbol<CutuneGemmFp8LaunchFn>(library, CUTUNE_GEMM_FP8_LAUNCH_SYMBOL, path);
  out.release = symbol<CutuneGemmFp8ReleaseFn>(library, CUTUNE_GEMM_FP8_RELEASE_SYMBOL, path);
  return loaded[path] = out;
}

Fp8Launch::Fp8Launch(const Fp8Library& library, const Fp8Problem& problem,
                     const Fp8Operands& operands, int sm_count)
    : library_(library) {
  CutuneGemmFp8Args args{};
  args.abi_version = CUTUNE_GEMM_FP8_ABI_VERSION;
  args.scaling = static_cast<int>(problem.scaling);
  args.a_format = static_cast<int>(problem.a_format);
  args.b_format = static_cast<int>(problem.b_format);
  args.m = problem.m;
  args.n = problem.n;
  args.k = problem.k;
  args.a = reinterpret_cast<const void*>(operands.a);
  args.b = reinterpret_cast<const void*>(operands.b);
  args.d = reinterpret_cast<void*>(operands.d);
  args.scale_a = reinterpret_cast<const float*>(operands.scale_a);
  args.scale_b = reinterpret_cast<const float*>(operands.scale_b);
  args.sm_count = sm_count;
  const unsigned long long bytes = library.workspace(&args);
  if (bytes > 0 && cuMemAlloc(&workspace_, bytes) != CUDA_SUCCESS) {
    throw std::runtime_error("cuMemAlloc of the fp8 GEMM's workspace (" + std::to_string(bytes) +
                             " bytes) failed");
  }
  char error[256] = {};
  handle_ = library.prepare(&args, reinterpret_cast<void*>(workspace_), error, sizeof error);
  if (handle_ == nullptr) {
    if (workspace_ != 0) cuMemFree(workspace_);
    throw std::runtime_error(std::string("the fp8 GEMM library refused the problem: ") + error);
  }
}

Fp8Launch::Fp8Launch(Fp8Launch&& other) noexcept
    : library_(other.library_),
      handle_(std::exchange(other.handle_, nullptr)),
      workspace_(std::exchange(other.workspace_, 0)) {}

Fp8Launch& Fp8Launch::operator=(Fp8Launch&& other) noexcept {
  std::swap(library_, other.library_);
  std::swap(handle_, other.handle_);
  std::swap(workspace_, other.workspace_);
  return *this;
}

Fp8Launch::~Fp8Launch() {
  if (handle_ != nullptr) library_.release(handle_);
  if (workspace_ != 0) cuMemFree(workspace_);
}

void Fp8Launch::launch(CUstream stream) const {
  if (const int error = library_.launch(handle_, stream); error != 0) {
    throw std::runtime_error("the fp8 GEMM's launch failed with cudaError " +
                             std::to_string(error));
  }
}

}  // namespace cutune::gemm_fp8
