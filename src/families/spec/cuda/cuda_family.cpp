// The runtime's side of the CUDA backend: a spec's configs compiled by the backend (same cubins,
// same cache as its tunes) and loaded into the CUDA context the family was created in.
#include <cuda.h>
#include <fmt/format.h>

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/kernel_launch.hpp"
#include "cutune/cuda.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "eval/backend_support.hpp"
#include "spec/cuda/cuda_spec_family.hpp"

namespace cutune {
namespace {

using families::cuda_options;
using runtime::ContextScope;
using runtime::error_text;

class CudaLoader {
 public:
  CudaLoader(const KernelSpec& spec, const CudaFamilyOptions& options)
      : spec_(spec), evaluator_(spec, spec.problem, cuda_options(options)) {
    if (cuCtxGetCurrent(&context_) != CUDA_SUCCESS || context_ == nullptr) {
      throw std::runtime_error("cuda_spec_family(" + spec.name +
                               "): no CUDA context is current on this thread");
    }
  }

  CudaEvaluator& evaluator() { return evaluator_; }

  std::unique_ptr<Kernel> load(const Config& config, const Problem& problem, KernelOrigin origin) {
    const CudaKernel::Shape shape = shape_of(config, problem);
    const std::vector<cuda::CompileResult> compiled = [&] {
      std::lock_guard lock(mutex_);  // the evaluator is not thread-safe
      return evaluator_.compile(std::span<const Config>(&config, 1));
    }();
    if (compiled.empty() || !compiled.front().ok()) {
      throw std::runtime_error(fmt::format(
          "config {} of {} does not compile: {}", config.to_string(), spec_.name,
          compiled.empty()
              ? ""
              : eval::compile_failure_detail(compiled.front().log, compiled.front().log_file)));
    }
    ContextScope scope(context_);
    CUmodule module = nullptr;
    if (CUresult code = cuModuleLoad(&module, compiled.front().cubin.c_str());
        code != CUDA_SUCCESS) {
      throw std::runtime_error(
          fmt::format("cannot load {}: {}", compiled.front().cubin.string(), error_text(code)));
    }
    std::shared_ptr<void> owner(module, [](void* m) { cuModuleUnload(static_cast<CUmodule>(m)); });
    const std::string symbol = compiled.front().symbol(spec_.entry);
    CUfunction function = nullptr;
    if (CUresult code = cuModuleGetFunction(&function, module, symbol.c_str());
        code != CUDA_SUCCESS) {
      throw std::runtime_error(fmt::format(
          "{} has no kernel '{}': {}", compiled.front().cubin.string(), symbol, error_text(code)));
    }
    if (shape.shared_bytes > 48 * 1024) {
      cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                         static_cast<int>(shape.shared_bytes));
    }
    return std::make_unique<CudaKernel>(config, origin, std::move(owner), function, shape);
  }

 private:
  CudaKernel::Shape shape_of(const Config& config, const Problem& problem) {
    try {
      const LaunchShape launch = launch_shape(spec_, config, problem, evaluator_.device());
      return {launch.grid, launch.block, launch.cluster, launch.shared_bytes};
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(
          fmt::format("config {} of {}: {}", config.to_string(), spec_.name, e.what()));
    }
  }

  const KernelSpec& spec_;
  std::mutex mutex_;
  CudaEvaluator evaluator_;
  CUcontext context_ = nullptr;
};

}  // namespace

int CudaKernel::launch(CUstream_st* stream, void** params) const {
  // The worker's own launch: the kernel runs as it was measured.
  const cuda::KernelGeometry geometry{shape_.grid, shape_.block, shape_.cluster,
                                      shape_.shared_bytes};
  return static_cast<int>(cuda::launch_kernel(function_, geometry, stream, params));
}

Family cuda_spec_family(const KernelSpec& spec, CudaFamilyOptions options) {
  Family f = families::cuda_tuning_family(spec, options);
  auto loader = std::make_shared<CudaLoader>(spec, options);
  f.device = loader->evaluator().device();
  f.device_key = loader->evaluator().device_name();
  f.toolchain = loader->evaluator().toolchain();
  f.load = [loader](const Config& config, const Problem& problem, KernelOrigin origin) {
    return loader->load(config, problem, origin);
  };
  return f;
}

}  // namespace cutune
