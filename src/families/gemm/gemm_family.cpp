// The built-in Hopper GEMM as a runtime family: configs compiled by the tuner's GemmCompiler,
// loaded into the CUDA context the family was made in, launched through cached GemmLaunches.
#include <cuda.h>
#include <fmt/format.h>

#include <stdexcept>

#include "backend/cuda/cuda_context.hpp"
#include "cutune/gemm.hpp"
#include "gemm/gemm_cubins.hpp"
#include "gemm/gemm_family_record.hpp"
#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_runtime_support.hpp"
#include "gemm/gemm_space.hpp"

namespace cutune {
namespace {

using runtime::ContextScope;
using runtime::error_text;

constexpr const char* kWho = "gemm_family";

class GemmLoader {
 public:
  GemmLoader(const runtime::GemmDevice& device, GemmCompileOptions compile)
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
  runtime::GemmDevice device_;
  runtime::GemmCubins cubins_;
};

}  // namespace

struct GemmRuntimeKernel::State {
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
  runtime::PreparedLaunches<gemm::GemmLaunch, 4> launches;  // a, b, d, workspace
  CUdeviceptr own_workspace = 0;                            // allocated under the launches' lock
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
std::string GemmRuntimeKernel::config_name() const { return gemm::to_string(state_->config); }
const gemm::GemmKernel& GemmRuntimeKernel::functions() const { return state_->functions; }

std::size_t GemmRuntimeKernel::prepared_count() const { return state_->launches.prepared(); }

std::size_t GemmRuntimeKernel::workspace_bytes() const {
  return gemm::workspace_bytes(state_->config, state_->problem);
}

std::shared_ptr<const gemm::GemmLaunch> GemmRuntimeKernel::prepare(
    const gemm::GemmOperands& operands) const {
  State& s = *state_;
  return s.launches.get({operands.a, operands.b, operands.d, operands.workspace}, [&] {
    ContextScope scope(s.context);
    gemm::GemmOperands bound = operands;
    if (bound.workspace == 0 && workspace_bytes() > 0) {
      if (s.own_workspace == 0) {
        runtime::check_driver(cuMemAlloc(&s.own_workspace, workspace_bytes()), kWho, "cuMemAlloc");
      }
      bound.workspace = s.own_workspace;
    }
    return std::make_shared<const gemm::GemmLaunch>(s.functions, s.problem, s.config, bound,
                                                    s.device);
  });
}

void GemmRuntimeKernel::launch(CUstream stream, const gemm::GemmOperands& operands) const {
  prepare(operands)->launch(stream);
}

Family gemm_family(GemmFamilyOptions options) {
  const runtime::GemmDevice device = runtime::current_gemm_device(kWho);
  auto loader = std::make_shared<GemmLoader>(device, options.compile);
  return runtime::runtime_gemm_family(
      gemm_tuning_family(runtime::runtime_tune_options(options, device)), device,
      loader->cubins().compiler_toolchain(),
      [loader](const Config& config, const Problem& problem, KernelOrigin origin) {
        return loader->load(config, problem, origin);
      });
}

}  // namespace cutune
