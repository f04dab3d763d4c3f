// The built-in Hopper GEMM as a runtime family: configs compiled by the tuner's GemmCompiler,
// loaded into the CUDA context the family was made in, launched through cached GemmLaunches.
#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>

#include "backend/cuda/cuda_context.hpp"
#include "cutune/cuda/worker_protocol.hpp"
#include "cutune/gemm.hpp"
#include "gemm/gemm_cubins.hpp"
#include "gemm/gemm_family_record.hpp"
#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_space.hpp"

namespace cutune {
namespace {

using runtime::ContextScope;
using runtime::error_text;

void check(CUresult code, const char* what) {
  if (code != CUDA_SUCCESS) {
    throw std::runtime_error(fmt::format("gemm_family: {}: {}", what, error_text(code)));
  }
}

bool same_operands(const gemm::GemmOperands& a, const gemm::GemmOperands& b) {
  return a.a == b.a && a.b == b.b && a.d == b.d && a.workspace == b.workspace;
}

// What the family knows of its context's device, read as the CUDA backend's worker reads it, so
// that the store keys of the runtime's loads and of `cutune tune gemm` agree.
struct DeviceInfo {
  CUcontext context = nullptr;
  CUdevice device = 0;
  Device description;
  std::string key;  // TuningKey::device: "NVIDIA H200 (sm_90)"
  int driver_version = 0;
};

DeviceInfo current_device() {
  DeviceInfo info;
  if (CUresult code = cuCtxGetCurrent(&info.context); code != CUDA_SUCCESS) {
    throw std::runtime_error(fmt::format(
        "gemm_family: no CUDA context is current on this thread (cuCtxGetCurrent: {}); make one "
        "current (cuDevicePrimaryCtxRetain, cuCtxSetCurrent) before creating the family",
        error_text(code)));
  }
  if (info.context == nullptr) {
    throw std::runtime_error(
        "gemm_family: no CUDA context is current on this thread; make one current "
        "(cuDevicePrimaryCtxRetain, cuCtxSetCurrent) before creating the family");
  }
  check(cuCtxGetDevice(&info.device), "cuCtxGetDevice");
  char name[256] = {};
  check(cuDeviceGetName(name, sizeof name, info.device), "cuDeviceGetName");
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(cuDeviceGetAttribute(&value, which, info.device), "cuDeviceGetAttribute");
    return value;
  };
  info.description.name = name;
  info.description.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.description.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.description.smem_per_block =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.description.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  check(cuDriverGetVersion(&info.driver_version), "cuDriverGetVersion");
  info.key = cuda::protocol::device_key(info.description.name, info.description.cc_major,
                                        info.description.cc_minor);
  return info;
}

class GemmLoader {
 public:
  GemmLoader(const DeviceInfo& device, GemmCompileOptions compile)
      : device_(device), cubins_(std::move(compile)) {}

  runtime::GemmCubins& cubins() { return cubins_; }

  std::unique_ptr<Kernel> load(const Config& config, const Problem& problem, KernelOrigin origin) {
    const gemm::GemmProblem shape = to_gemm_problem(problem);
    const gemm::GemmConfig knobs = to_gemm_config(config);
    if (const auto reasons =
            gemm::violations(knobs, shape, static_cast<int>(device_.description.smem_per_block));
        !reasons.empty()) {
      throw std::runtime_error(fmt::format("gemm config {} cannot run {}: {}", config.to_string(),
                                           problem.canonical(), gemm::joined(reasons)));
    }
    const std::filesystem::path cubin = cubins_.compile(config, problem);
    ContextScope scope(device_.context);
    CUmodule module = nullptr;
    if (CUresult code = cuModuleLoad(&module, cubin.c_str()); code != CUDA_SUCCESS) {
      throw std::runtime_error(
          fmt::format("gemm_family: cannot load {}: {}", cubin.string(), error_text(code)));
    }
    std::shared_ptr<void> owner(module, [](void* m) { cuModuleUnload(static_cast<CUmodule>(m)); });
    const gemm::GemmKernel functions = gemm::GemmKernel::load(module);
    return std::make_unique<GemmRuntimeKernel>(config, origin, std::move(owner), functions, shape,
                                               knobs, device_.context, device_.device);
  }

 private:
  DeviceInfo device_;
  runtime::GemmCubins cubins_;
};

}  // namespace

struct GemmRuntimeKernel::State {
  struct Entry {
    gemm::GemmOperands operands;
    std::shared_ptr<const gemm::GemmLaunch> launch;
  };

  State(std::shared_ptr<void> module, gemm::GemmKernel functions, gemm::GemmProblem problem,
        gemm::GemmConfig config, CUcontext context, CUdevice device)
      : module(std::move(module)),
        functions(functions),
        problem(problem),
        config(config),
        context(context),
        device(device) {}

  std::shared_ptr<void> module;
  gemm::GemmKernel functions;
  gemm::GemmProblem problem;
  gemm::GemmConfig config;
  CUcontext context;
  CUdevice device;
  std::mutex mutex;
  std::array<Entry, kCachedLaunches> cache{};
  std::size_t cached = 0;
  CUdeviceptr own_workspace = 0;
  std::atomic<std::size_t> prepared{0};
};

GemmRuntimeKernel::GemmRuntimeKernel(Config config, KernelOrigin origin,
                                     std::shared_ptr<void> module, gemm::GemmKernel functions,
                                     gemm::GemmProblem problem, gemm::GemmConfig gemm_config,
                                     CUcontext context, CUdevice device)
    : Kernel(std::move(config), origin),
      state_(std::make_unique<State>(std::move(module), functions, problem, gemm_config, context,
                                     device)) {}

GemmRuntimeKernel::~GemmRuntimeKernel() {
  if (state_->own_workspace != 0) {
    ContextScope scope(state_->context);
    cuMemFree(state_->own_workspace);
  }
}

const gemm::GemmProblem& GemmRuntimeKernel::problem() const { return state_->problem; }
const gemm::GemmConfig& GemmRuntimeKernel::gemm_config() const { return state_->config; }
const gemm::GemmKernel& GemmRuntimeKernel::functions() const { return state_->functions; }

std::size_t GemmRuntimeKernel::prepared_count() const {
  return state_->prepared.load(std::memory_order_relaxed);
}

std::size_t GemmRuntimeKernel::workspace_bytes() const {
  return gemm::workspace_bytes(state_->config, state_->problem);
}

std::shared_ptr<const gemm::GemmLaunch> GemmRuntimeKernel::prepare(
    const gemm::GemmOperands& operands) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  for (std::size_t i = 0; i < s.cached; ++i) {
    if (same_operands(s.cache[i].operands, operands)) {
      // Most recently used first: a program that alternates between a few operand sets finds
      // each near the front.
      if (i != 0) std::rotate(s.cache.begin(), s.cache.begin() + i, s.cache.begin() + i + 1);
      return s.cache[0].launch;
    }
  }
  ContextScope scope(s.context);
  gemm::GemmOperands bound = operands;
  if (bound.workspace == 0 && workspace_bytes() > 0) {
    if (s.own_workspace == 0) check(cuMemAlloc(&s.own_workspace, workspace_bytes()), "cuMemAlloc");
    bound.workspace = s.own_workspace;
  }
  auto launch =
      std::make_shared<const gemm::GemmLaunch>(s.functions, s.problem, s.config, bound, s.device);
  s.prepared.fetch_add(1, std::memory_order_relaxed);
  // The least recently used entry falls off the end.
  if (s.cached < s.cache.size()) ++s.cached;
  std::rotate(s.cache.begin(), s.cache.begin() + s.cached - 1, s.cache.begin() + s.cached);
  s.cache[0] = State::Entry{operands, launch};
  return launch;
}

void GemmRuntimeKernel::launch(CUstream stream, const gemm::GemmOperands& operands) const {
  prepare(operands)->launch(stream);
}

Family gemm_family(GemmFamilyOptions options) {
  const DeviceInfo device = current_device();
  auto loader = std::make_shared<GemmLoader>(device, options.compile);
  GemmEvaluatorOptions tune = std::move(options.tune);
  tune.compile = options.compile;
  tune.devices = options.tune_devices;
  if (tune.devices.empty()) tune.devices = {static_cast<int>(device.device)};
  Family f = gemm_tuning_family(std::move(tune));
  f.device = device.description;
  f.device_key = device.key;
  f.toolchain =
      cuda::protocol::toolchain_key(loader->cubins().compiler_toolchain(), device.driver_version);
  f.load = [loader](const Config& config, const Problem& problem, KernelOrigin origin) {
    return loader->load(config, problem, origin);
  };
  return f;
}

}  // namespace cutune
