// cutune::Runtime with the GEMM families (gemm; gemm_fp8 once an fp8 GEMM is asked for), behind
// GemmRunner: one map lookup per launch after the first of a shape.
#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "cutune/family.hpp"
#include "cutune/gemm.hpp"
#include "cutune/gemm_fp8.hpp"
#include "cutune_python_gemm.hpp"
#include "launch_timer.hpp"
#include "warning_log.hpp"

namespace cutune::python {
namespace {

void check(CUresult code, const char* what) {
  if (code == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(code, &name);
  throw std::runtime_error(fmt::format("cutune.gemm: {} failed: {}", what,
                                       name != nullptr ? name : std::to_string(code)));
}

// The device's primary context (PyTorch's), current on this thread.
CUcontext primary_context(int ordinal) {
  check(cuInit(0), "cuInit");
  CUdevice device = 0;
  check(cuDeviceGet(&device, ordinal), "cuDeviceGet");
  CUcontext context = nullptr;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  return context;
}

std::string problem_text(const GemmShape& s) {
  if (s.dtype != 0 && s.dtype != 1) throw std::invalid_argument("dtype: 0 (bf16) or 1 (fp16)");
  // b_layout only when it is not the default, as `cutune tune gemm --problem` is usually given.
  return fmt::format("m={},n={},k={},dtype={}{}", s.m, s.n, s.k, s.dtype == 0 ? "bf16" : "fp16",
                     s.b_transposed ? ",b_layout=n_by_k" : "");
}

// The config name of a kernel of either family.
std::string config_name(const Kernel& kernel) {
  if (const auto* fp8 = dynamic_cast<const GemmFp8RuntimeKernel*>(&kernel)) {
    return fp8->config_name();
  }
  return kernel.as<GemmRuntimeKernel>().config_name();
}

}  // namespace

struct GemmRunner::Impl {
  int device = 0;
  CUcontext context = nullptr;
  WarningLog warnings;  // outlives the runtime
  // Made in the runner's context, once: the runtime's families too (fp8 on its first GEMM).
  std::optional<FamilySource> source;
  std::optional<FamilySource> fp8_source;
  std::optional<Runtime> runtime;
  std::map<GemmShape, const GemmRuntimeKernel*> kernels;
  std::map<Fp8Shape, const GemmFp8RuntimeKernel*> fp8_kernels;
  // The worker's one timing (backend/cuda/launch_timer.hpp), for the stream it was made on.
  std::unique_ptr<cuda::worker::LaunchTimer> timer;

  const GemmRuntimeKernel& kernel(const GemmShape& shape) {
    return cached(kernels, shape, "gemm", problem_text(shape));
  }

  const GemmFp8RuntimeKernel& kernel(const Fp8Shape& shape) {
    return cached(fp8_kernels, shape, "gemm_fp8", fp8_text(shape));
  }

  // The kernel of `shape` in `kernels`, else the runtime's for the problem `text`, kept there.
  template <typename K, typename Shape>
  const K& cached(std::map<Shape, const K*>& kernels, const Shape& shape, const std::string& name,
                  const std::string& text) {
    if (auto found = kernels.find(shape); found != kernels.end()) return *found->second;
    const K* loaded = &runtime->get(name, problem(name, text)).template as<K>();
    kernels.emplace(shape, loaded);
    return *loaded;
  }

  static std::string fp8_text(const Fp8Shape& s) {
    return gemm_fp8_problem_text(s.m, s.n, s.k, s.scaling, s.a_format, s.b_format);
  }

  // The family of that name, the fp8 one made (in the runner's context) and added on first need.
  const FamilySource& family(const std::string& name) {
    if (name == "gemm") return *source;
    if (name != "gemm_fp8") {
      throw std::invalid_argument(
          fmt::format("cutune.gemm: family '{}' is neither gemm nor gemm_fp8", name));
    }
    if (!fp8_source) {
      fp8_source.emplace(FamilySource{nullptr, gemm_fp8_family()});
      runtime->add_family(fp8_source->family);
    }
    return *fp8_source;
  }

  // By the one problem rule, as `cutune tune gemm --problem` reads it ("m=128" keeps the
  // example's n, k and dtype).
  Problem problem(const std::string& name, const std::string& text) {
    return problem_for(family(name), text);
  }
};

GemmRunner::GemmRunner(const std::string& db, int device) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  impl_->context = primary_context(device);
  impl_->runtime.emplace(impl_->warnings.runtime_options(db));
  impl_->source.emplace(FamilySource{nullptr, gemm_family()});
  impl_->runtime->add_family(impl_->source->family);
}

GemmRunner::~GemmRunner() {
  impl_->kernels.clear();
  impl_->fp8_kernels.clear();
  impl_->timer.reset();    // frees its flush buffer while the context lives
  impl_->runtime.reset();  // unloads the modules while the context lives
  CUdevice device = 0;
  if (cuDeviceGet(&device, impl_->device) == CUDA_SUCCESS) cuDevicePrimaryCtxRelease(device);
}

int GemmRunner::device() const { return impl_->device; }

void GemmRunner::launch(const GemmShape& shape, std::uint64_t a, std::uint64_t b, std::uint64_t d,
                        std::uintptr_t stream) {
  impl_->kernel(shape).launch(reinterpret_cast<CUstream>(stream), gemm::GemmOperands{a, b, d, 0});
}

void GemmRunner::launch_fp8(const Fp8Shape& shape, std::uint64_t a, std::uint64_t b,
                            std::uint64_t d, std::uint64_t scale_a, std::uint64_t scale_b,
                            std::uintptr_t stream) {
  impl_->kernel(shape).launch(reinterpret_cast<CUstream>(stream),
                              gemm_fp8::Fp8Operands{a, b, d, scale_a, scale_b});
}

std::string GemmRunner::describe(const GemmShape& shape) {
  return describe("gemm", problem_text(shape));
}

std::string GemmRunner::describe(const std::string& family, const std::string& problem) {
  const KernelQuery query = impl_->runtime->query(family, impl_->problem(family, problem));
  const Kernel& kernel = impl_->runtime->get(query);
  nlohmann::json out{{"family", family},
                     {"problem", query.problem().canonical()},
                     {"config", kernel.config().to_json()},
                     {"config_name", config_name(kernel)},
                     {"origin", std::string(to_string(kernel.origin()))}};
  out["warnings"] = impl_->warnings.take();
  return out.dump();
}

std::vector<double> GemmRunner::time_launches(const GemmShape& shape, std::uint64_t a,
                                              std::uint64_t b, std::uint64_t d, bool flush,
                                              int repetitions, std::uintptr_t stream_handle) {
  const GemmRuntimeKernel& kernel = impl_->kernel(shape);
  const auto stream = reinterpret_cast<CUstream>(stream_handle);
  const gemm::GemmOperands operands{a, b, d, 0};
  kernel.launch(stream, operands);  // prepares the launch outside the timed loop
  if (!impl_->timer || impl_->timer->stream() != stream) {
    impl_->timer.reset();
    impl_->timer = std::make_unique<cuda::worker::LaunchTimer>(stream);
  }
  return impl_->timer->time([&] { kernel.launch(stream, operands); }, std::max(repetitions, 0),
                            flush);
}

}  // namespace cutune::python
