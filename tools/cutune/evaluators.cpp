#include "evaluators.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include "cutune/cpu.hpp"
#ifdef CUTUNE_HAVE_CUDA
#include "cutune/cuda.hpp"
#endif
#ifdef CUTUNE_HAVE_GEMM_EVALUATOR
#include "gemm/gemm_evaluator.hpp"
#endif

namespace cutune::cli {

TunedTarget make_spec_target(const KernelSpec& spec, const Problem& problem,
                             const std::vector<int>& devices) {
  if (spec.backend == "cpu") {
    TunedTarget target;
    CpuOptions options;
    options.devices = static_cast<unsigned>(devices.size());
    target.evaluator = std::make_unique<CpuEvaluator>(spec, problem, options);
    target.device = Device::host_cpu();
    return target;
  }
#ifdef CUTUNE_HAVE_CUDA
  if (spec.backend == "cuda") {
    // The evaluator starts the device worker, whose report of the GPU is what constraints and
    // seeds see. Without a GPU or driver the worker does not start: std::runtime_error.
    CudaOptions options;
    options.devices = devices;
    auto evaluator = std::make_unique<CudaEvaluator>(spec, problem, options);
    TunedTarget target;
    target.device = evaluator->device();
    target.evaluator = std::move(evaluator);
    return target;
  }
#endif
  throw std::invalid_argument(fmt::format("{}: backend '{}' is not available in this build",
                                          spec.path.string(), spec.backend));
}

TunedTarget make_builtin_target(const std::string& family, const Problem& problem,
                                const std::vector<int>& devices) {
#ifdef CUTUNE_HAVE_GEMM_EVALUATOR
  if (family == "gemm") {
    GemmEvaluatorOptions options;
    options.devices = devices;
    auto evaluator = std::make_unique<GemmEvaluator>(problem, options);
    const gemm::GemmProblem& shape = evaluator->compiler().problem();
    TunedTarget target;
    target.device = evaluator->device();
    target.family_version = evaluator->compiler().source_version();
    target.flop_count = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                        static_cast<double>(shape.k);
    target.reference_name = "cuBLASLt";
    target.time_reference = [gemm = evaluator.get()] { return gemm->time_cublas(); };
    target.evaluator = std::move(evaluator);
    return target;
  }
#else
  (void)problem;
  (void)devices;
#endif
  throw std::invalid_argument(fmt::format(
      "built-in family '{}' cannot be tuned by this build (it needs the CUDA backend)", family));
}

}  // namespace cutune::cli
