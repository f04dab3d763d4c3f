// The fp8 Hopper GEMM as a runtime family: configs compiled by the tuner's Fp8Compiler into shared
// libraries, loaded with dlopen, launched through cached Fp8Launches in the family's context. What
// it shares with the bf16 runtime family (the device, the key parts, the launch cache) is
// gemm/gemm_runtime_support.hpp.
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "backend/cuda/cuda_context.hpp"
#include "cutune/gemm_fp8.hpp"
#include "gemm/gemm_cubins.hpp"
#include "gemm/gemm_runtime_support.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"
#include "gemm_fp8/gemm_fp8_family_record.hpp"
#include "gemm_fp8/gemm_fp8_launch.hpp"
#include "gemm_fp8/gemm_fp8_space.hpp"

namespace cutune {

struct GemmFp8RuntimeKernel::State {
  gemm_fp8::Fp8Library library;
  gemm_fp8::Fp8Problem problem;
  gemm_fp8::Fp8Config config;
  CUcontext context = nullptr;
  int sm_count = 0;  // the persistent grid fills the device
  runtime::PreparedLaunches<gemm_fp8::Fp8Launch, 5> launches;  // a, b, d, scale_a, scale_b
};

namespace {

using gemm_fp8::LibraryKind;

// One Fp8Compiler per kind of library (the problem arguments a library depends on), made on
// first need; the default kind's at once, for the toolchain.
class Fp8Loader {
 public:
  Fp8Loader(const runtime::GemmDevice& device, GemmCompileOptions compile)
      : device_(device), options_(std::move(compile)) {
    toolchain_ = compiler_for(LibraryKind{}).toolchain();
  }

  // The compiler part of the store key's toolchain, as Fp8Evaluator writes it.
  const std::string& toolchain() const { return toolchain_; }

  std::unique_ptr<Kernel> load(const Config& config, const Problem& problem, KernelOrigin origin) {
    auto state = std::make_unique<GemmFp8RuntimeKernel::State>();
    state->problem = to_fp8_problem(problem);
    state->config = to_fp8_config(config);
    if (const auto reasons = gemm_fp8::violations(
            state->config, state->problem, static_cast<int>(device_.description.smem_per_block));
        !reasons.empty()) {
      throw std::runtime_error(fmt::format("gemm_fp8 config {} cannot run {}: {}",
                                           config.to_string(), problem.canonical(),
                                           gemm::joined(reasons)));
    }
    std::shared_future<cuda::CompileResult> future;
    {
      std::lock_guard lock(mutex_);  // submit() is not documented as thread-safe
      future = compiler_for(LibraryKind(state->problem)).submit(state->config);
    }
    state->library =
        gemm_fp8::Fp8Library::load(runtime::compiled_file(future, "gemm_fp8", config, problem));
    state->context = device_.context;
    state->sm_count = device_.description.sm_count;
    return std::make_unique<GemmFp8RuntimeKernel>(config, origin, std::move(state));
  }

 private:
  // Called with mutex_ held, or from the constructor.
  Fp8Compiler& compiler_for(const LibraryKind& kind) {
    auto it = compilers_.find(kind);
    if (it == compilers_.end()) {
      it = compilers_.emplace(kind, std::make_unique<Fp8Compiler>(kind, options_)).first;
    }
    return *it->second;
  }

  runtime::GemmDevice device_;
  GemmCompileOptions options_;
  std::string toolchain_;
  std::mutex mutex_;
  std::map<LibraryKind, std::unique_ptr<Fp8Compiler>> compilers_;
};

}  // namespace

GemmFp8RuntimeKernel::GemmFp8RuntimeKernel(Config config, KernelOrigin origin,
                                           std::unique_ptr<State> state)
    : Kernel(std::move(config), origin), state_(std::move(state)) {}

GemmFp8RuntimeKernel::~GemmFp8RuntimeKernel() {
  // Each launch frees its workspace and its library's handle: in the context they live in.
  runtime::ContextScope scope(state_->context);
  state_->launches.clear();
}

void GemmFp8RuntimeKernel::launch(CUstream stream, const gemm_fp8::Fp8Operands& operands) const {
  State& s = *state_;
  // The library's CUDA runtime works in the current context, which must be the kernel's.
  runtime::ContextScope scope(s.context);
  s.launches
      .get({operands.a, operands.b, operands.d, operands.scale_a, operands.scale_b},
           [&] {
             return std::make_shared<const gemm_fp8::Fp8Launch>(s.library, s.problem, operands,
                                                                s.sm_count);
           })
      ->launch(stream);
}

std::string GemmFp8RuntimeKernel::config_name() const {
  return gemm_fp8::to_string(state_->config);
}

std::size_t GemmFp8RuntimeKernel::prepared_count() const { return state_->launches.prepared(); }

Family gemm_fp8_family(GemmFamilyOptions options) {
  const runtime::GemmDevice device = runtime::current_gemm_device("gemm_fp8_family");
  auto loader = std::make_shared<Fp8Loader>(device, options.compile);
  return runtime::runtime_gemm_family(
      gemm_fp8_tuning_family(runtime::runtime_tune_options(options, device)), device,
      loader->toolchain(),
      [loader](const Config& config, const Problem& problem, KernelOrigin origin) {
        return loader->load(config, problem, origin);
      });
}

std::string gemm_fp8_problem_text(std::int64_t m, std::int64_t n, std::int64_t k,
                                  const std::string& scaling, const std::string& a_format,
                                  const std::string& b_format) {
  return gemm_fp8_problem(m, n, k, scaling, a_format, b_format).canonical();
}

}  // namespace cutune
