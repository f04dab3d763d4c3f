// CudaEvaluator (cutune/cuda.hpp): its compiler and device workers, and its public API over the
// parts in cuda_evaluator_impl.hpp.
#include <chrono>
#include <filesystem>

#include "cuda_evaluator_impl.hpp"
#include "eval/backend_support.hpp"
#include "eval/files.hpp"

namespace cutune {
namespace {

namespace proto = cuda::protocol;

constexpr int retime_scale = 5;

}  // namespace

double CudaEvaluationStats::overhead_ms_per_candidate() const {
  if (candidates == 0) return 0;
  return (wall_s - compile_wait_s - kernel_s) * 1e3 / static_cast<double>(candidates);
}

CudaEvaluator::CudaEvaluator(const KernelSpec& spec, Problem problem, CudaOptions options) {
  if (spec.backend != "cuda" || !spec.launch) {
    throw std::invalid_argument(spec.path.string() + ": the spec targets backend '" + spec.backend +
                                "', not cuda");
  }
  impl_ = std::make_unique<Impl>(spec, spec.resolve(problem), std::move(options));
  auto& impl = *impl_;
  const std::string& compiler = spec.compile.compiler;
  cuda::CubinCompiler::Options compile_options;
  if (compiler == "nvrtc") {
    impl.compiler_kind = cuda::CompilerKind::nvrtc;
  } else if (std::filesystem::path(compiler).filename() == "nvcc") {
    compile_options.nvcc = compiler;
  } else {
    throw std::invalid_argument(spec.path.string() + ": compile.compiler '" + compiler +
                                "' is neither nvrtc nor nvcc");
  }
  compile_options.cache_dir =
      impl.options.cache_dir.empty() ? eval::default_cache_dir("cuda") : impl.options.cache_dir;
  compile_options.jobs = impl.options.jobs;
  compile_options.time_limit =
      std::chrono::milliseconds(static_cast<long long>(spec.compile.timeout_s * 1e3));
  impl.compiler = std::make_unique<cuda::CubinCompiler>(compile_options);
  impl.source_text = eval::read_file(spec.source);

  cuda::DeviceWorkerPool::Options worker_options;
  worker_options.devices = impl.options.devices;
  worker_options.worker = impl.options.worker;
  worker_options.watchdog =
      std::chrono::milliseconds(static_cast<long long>(spec.timing.timeout_s * 1e3));
  impl.workers = std::make_unique<cuda::DeviceWorkerPool>(worker_options);
  impl.report = impl.workers->identical_devices();
  impl.device = {impl.report.name,     impl.report.cc_major,
                 impl.report.cc_minor, impl.report.smem_optin_bytes,
                 impl.report.sm_count, impl.report.regs_per_sm};
  if (impl.options.arch.empty()) {
    // Hopper and later have architecture-specific features (wgmma, setmaxnreg) only under "a".
    impl.options.arch = "sm_" + std::to_string(impl.report.cc_major) +
                        std::to_string(impl.report.cc_minor) +
                        (impl.report.cc_major >= 9 ? "a" : "");
  }
  impl.set_arguments();
  impl.set_reference();
}

CudaEvaluator::~CudaEvaluator() = default;

std::vector<Measurement> CudaEvaluator::evaluate(std::span<const Config> batch) {
  return impl_->run(batch, impl_->timing(1));
}

std::vector<cuda::CompileResult> CudaEvaluator::compile(std::span<const Config> batch) {
  std::vector<std::shared_future<cuda::CompileResult>> pending;
  for (const auto& config : batch) {
    pending.push_back(impl_->compiler->submit(
        impl_->compile_request(impl_->spec.source, config, impl_->spec.entry)));
  }
  std::vector<cuda::CompileResult> out;
  for (auto& future : pending) out.push_back(future.get());
  return out;
}

std::vector<Measurement> CudaEvaluator::retime(std::span<const Config> batch) {
  return impl_->run(batch, impl_->timing(retime_scale));
}

PairedRounds CudaEvaluator::time_rounds(std::span<const Config> configs, int rounds) {
  return impl_->rounds(configs, rounds);
}

std::string CudaEvaluator::device_name() const {
  return proto::device_key(impl_->report.name, impl_->report.cc_major, impl_->report.cc_minor);
}

std::string CudaEvaluator::toolchain() const {
  std::string flags;
  for (const auto& flag : impl_->spec.compile.flags) flags += " " + flag;
  return proto::toolchain_key(impl_->compiler->identity(impl_->compiler_kind),
                              impl_->report.driver_version) +
         "; " + impl_->options.arch + flags;
}

const CudaEvaluationStats& CudaEvaluator::stats() const { return impl_->stats; }
const Device& CudaEvaluator::device() const { return impl_->device; }

}  // namespace cutune
