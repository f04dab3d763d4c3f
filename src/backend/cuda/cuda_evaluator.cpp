#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "cubin_symbols.hpp"
#include "cutune/cuda.hpp"
#include "cutune/cuda/device_worker_pool.hpp"
#include "cutune/space.hpp"
#include "eval/backend_support.hpp"
#include "eval/files.hpp"

namespace cutune {
namespace {

namespace proto = cuda::protocol;
using Clock = std::chrono::steady_clock;

constexpr int retime_scale = 5;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The knob definitions of the CPU backend (knob_definitions, cutune/spec.hpp), so that one kernel
// source serves both, as the (name, value) pairs a cubin compile request takes.
void add_knob_defines(const Config& config, std::vector<std::pair<std::string, std::string>>& out) {
  for (const std::string& definition : knob_definitions(config)) {
    const auto equals = definition.find('=');
    out.emplace_back(definition.substr(0, equals), definition.substr(equals + 1));
  }
}

proto::Dtype dtype_named(const std::string& type, const KernelSpec& spec) {
  static const std::map<std::string, proto::Dtype> types = {
      {"f64", proto::Dtype::f64},   {"f32", proto::Dtype::f32}, {"f16", proto::Dtype::f16},
      {"bf16", proto::Dtype::bf16}, {"i32", proto::Dtype::i32}, {"i64", proto::Dtype::i64},
      {"u32", proto::Dtype::u32},   {"u64", proto::Dtype::u64}, {"u8", proto::Dtype::u8}};
  auto found = types.find(type);
  if (found == types.end()) {
    throw std::invalid_argument(spec.path.string() + ": buffer type " + type +
                                " is not one the CUDA worker knows");
  }
  return found->second;
}

}  // namespace

namespace {

LaunchShape shape_of(const LaunchSpec& launch, const Config& config, const Problem& problem,
                     const Device& device) {
  auto dimension = [&](const Expression& e, double least) {
    const double value = e.evaluate(config, problem, device);
    if (!(value >= least) || value > 2147483647.0) {
      throw std::invalid_argument("launch expression '" + e.text() + "' gives " +
                                  std::to_string(value));
    }
    return static_cast<std::uint32_t>(std::llround(value));
  };
  LaunchShape shape;
  for (int axis = 0; axis < 3; ++axis) {
    shape.grid[axis] = dimension(launch.grid[axis], 1);
    shape.block[axis] = dimension(launch.block[axis], 1);
    shape.cluster[axis] = dimension(launch.cluster[axis], 1);
  }
  shape.shared_bytes = dimension(launch.shared_memory, 0);
  return shape;
}

}  // namespace

LaunchShape launch_shape(const KernelSpec& spec, const Config& config, const Problem& problem,
                         const Device& device) {
  return shape_of(*spec.launch, config, problem, device);
}

double CudaEvaluationStats::overhead_ms_per_candidate() const {
  if (candidates == 0) return 0;
  return (wall_s - compile_wait_s - kernel_s) * 1e3 / static_cast<double>(candidates);
}

struct CudaEvaluator::Impl {
  const KernelSpec& spec;
  Problem problem;
  CudaOptions options;
  Device device;
  proto::DeviceReport report;
  cuda::CompilerKind compiler_kind = cuda::CompilerKind::nvcc;
  std::unique_ptr<cuda::CubinCompiler> compiler;
  std::unique_ptr<cuda::DeviceWorkerPool> workers;
  std::string source_text;
  std::optional<proto::Launch> reference;
  std::vector<proto::Arg> args;
  std::vector<proto::Constant> constants;
  double tolerance = -1;
  std::atomic<std::uint64_t> next_id{1};  // slots build requests in parallel
  CudaEvaluationStats stats;

  Impl(const KernelSpec& s, Problem p, CudaOptions o)
      : spec(s), problem(std::move(p)), options(std::move(o)) {}

  cuda::CompileRequest compile_request(const std::filesystem::path& source, const Config& config,
                                       const std::string& entry) {
    cuda::CompileRequest request;
    request.source = source == spec.source ? source_text : eval::read_file(source);
    request.source_name = source.filename().string();
    request.arch = options.arch;
    request.compiler = compiler_kind;
    add_knob_defines(config, request.defines);
    request.include_dirs.push_back(source.parent_path());
    for (const auto& depend : spec.compile.depends) {
      request.include_dirs.push_back(depend.parent_path());
    }
    request.options = spec.compile.flags;
    // An entry is a name expression, so that it need not be extern "C" (Kernel Tuner's kernels
    // seldom are): under NVRTC a template instantiation or a plain name, under nvcc a plain name.
    if (compiler_kind == cuda::CompilerKind::nvrtc || cuda::cubin_symbols::is_plain_name(entry)) {
      request.name_expressions.push_back(entry);
    }
    return request;
  }

  // The launch of a config by the kernel's launch shape, or by `other` (a reference's own).
  std::optional<proto::Launch> launch_of(const Config& config, std::string& why,
                                         const LaunchSpec* other = nullptr) const {
    try {
      const LaunchShape shape = shape_of(other ? *other : *spec.launch, config, problem, device);
      proto::Launch launch;
      for (int axis = 0; axis < 3; ++axis) {
        launch.grid[axis] = shape.grid[axis];
        launch.block[axis] = shape.block[axis];
        launch.cluster[axis] = shape.cluster[axis];
      }
      launch.dynamic_smem = shape.shared_bytes;
      return launch;
    } catch (const std::invalid_argument& e) {
      why = e.what();
      return std::nullopt;
    }
  }

  proto::Timing timing(int scale) const {
    proto::Timing t;
    t.warmup = spec.timing.warmup;
    t.budget_ms = spec.timing.budget_ms * scale;
    t.min_reps = spec.timing.min_reps;
    t.max_reps = spec.timing.max_reps * scale;
    t.flush_l2 = spec.timing.flush_cache;
    return t;
  }

  Measurement failed_compile(const cuda::CompileResult& result) const {
    Measurement m;
    m.outcome = cuda::outcome_of(result.status);
    m.detail = eval::compile_failure_detail(result.log, result.log_file, result.cached);
    return m;
  }

  PairedRounds rounds(std::span<const Config> configs, int count) {
    PairedRounds out;
    out.checks.assign(configs.size(), Measurement{});
    out.rounds.assign(static_cast<std::size_t>(std::max(0, count)), TimedRound{});
    for (TimedRound& round : out.rounds) round.times_ms.assign(configs.size(), NAN);
    proto::MeasureRequest request = measure_request(timing(1));
    request.rounds = count;
    std::vector<std::shared_future<cuda::CompileResult>> compiles;
    for (const Config& config : configs) {
      compiles.push_back(compiler->submit(compile_request(spec.source, config, spec.entry)));
    }
    std::vector<std::size_t> sent;  // config index of each candidate in the request
    for (std::size_t i = 0; i < configs.size(); ++i) {
      std::optional<proto::Launch> launch = launch_of(configs[i], out.checks[i].detail);
      const cuda::CompileResult& compiled = compiles[i].get();
      if (!launch) {
        out.checks[i].outcome = Outcome::invalid_config;
      } else if (!compiled.ok()) {
        out.checks[i] = failed_compile(compiled);
      } else {
        launch->cubin = compiled.cubin.string();
        launch->kernel = compiled.symbol(spec.entry);
        request.candidates.push_back(*launch);
        sent.push_back(i);
      }
    }
    // The watchdog allows four times the budget: the spec's budget per candidate and round
    // (plus the reference's check), warm-up rounds (at most 40) included.
    request.timing.budget_ms *= static_cast<double>((count + 40) * (sent.size() + 1));
    cuda::read_paired_rounds(workers->measure(0, request), sent, out);
    out.steady_state =
        "untimed rounds until the first config's time moved by under 2 % and the SM clock by "
        "under 1 %; each round times every config " +
        std::to_string(request.reps) + " times from a flushed L2, median kept";
    return out;
  }

  proto::MeasureRequest measure_request(const proto::Timing& timing) {
    proto::MeasureRequest request;
    request.id = next_id++;
    request.reference = reference;
    request.reference_name = checked_against(spec);
    request.args = args;
    request.constants = constants;
    request.seed = options.seed;
    request.tolerance = tolerance;
    request.timing = timing;
    return request;
  }

  std::vector<Measurement> run(std::span<const Config> batch, const proto::Timing& timing) {
    auto start = Clock::now();
    std::vector<std::shared_future<cuda::CompileResult>> compiles;
    std::vector<std::optional<proto::Launch>> launches;
    std::vector<Measurement> out(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      launches.push_back(launch_of(batch[i], out[i].detail));
      if (!launches.back()) out[i].outcome = Outcome::invalid_config;
      compiles.push_back(compiler->submit(compile_request(spec.source, batch[i], spec.entry)));
    }
    // Each slot takes the next candidate, waits for its cubin, and measures it.
    std::mutex merge;
    eval::for_each_on_slots(workers->size(), batch.size(), [&](std::size_t slot, std::size_t i) {
      auto wait_start = Clock::now();
      const cuda::CompileResult& compiled = compiles[i].get();
      double waited = seconds_since(wait_start);
      Measurement m = out[i];
      std::optional<cuda::DeviceResult> result;
      if (!compiled.ok()) {
        m = failed_compile(compiled);
      } else if (launches[i]) {
        proto::MeasureRequest request = measure_request(timing);
        request.candidate = *launches[i];
        request.candidate.cubin = compiled.cubin.string();
        request.candidate.kernel = compiled.symbol(spec.entry);
        result = workers->measure(slot, request);
        m = result->measurement;
      }
      m.compile_s = compiled.compile_s;
      std::lock_guard lock(merge);
      stats.compile_s += compiled.compile_s;
      stats.compile_wait_s += waited;
      if (result) {
        ++stats.measured;
        stats.kernel_s += result->reply.kernel_ms / 1e3;
      }
      out[i] = std::move(m);
    });
    stats.candidates += batch.size();
    stats.worker_starts = workers->workers_started();
    stats.wall_s += seconds_since(start);
    return out;
  }
};

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

  std::vector<proto::Arg> buffers;
  for (const auto& buffer : spec.buffers) {
    double count = buffer.count.evaluate(impl.problem, impl.device);
    if (!(count >= 1) || count > 1e12) {
      throw std::invalid_argument(spec.path.string() + ": buffer '" + buffer.name + "' size '" +
                                  buffer.count.text() + "' is " + std::to_string(count));
    }
    proto::Arg arg;
    arg.dtype = dtype_named(buffer.type, spec);
    arg.count = static_cast<std::uint64_t>(std::llround(count));
    arg.role = nlohmann::json(std::string(to_string(buffer.role))).get<proto::Role>();
    arg.zero_fill = buffer.fill == BufferFill::zero;
    buffers.push_back(arg);
  }
  const auto scalar = [&](const std::string& type, const Expression& value) {
    proto::Arg arg;
    arg.is_buffer = false;
    arg.dtype = dtype_named(type, spec);
    const double v = value.evaluate(impl.problem, impl.device);
    arg.value = type[0] == 'f' ? v : static_cast<double>(std::llround(v));
    return arg;
  };
  if (spec.arguments.empty()) {  // the fixed ABI: buffers, then scalars as long long
    impl.args = buffers;
    for (const auto& value : spec.scalars) impl.args.push_back(scalar("i64", value));
  }
  for (const auto& argument : spec.arguments) {
    impl.args.push_back(argument.buffer >= 0 ? buffers[static_cast<std::size_t>(argument.buffer)]
                                             : scalar(argument.type, argument.value));
  }
  for (const auto& constant : spec.constants) {
    proto::Constant out;
    out.symbol = constant.symbol;
    if (constant.buffer >= 0 && spec.arguments.empty()) {
      out.arg = constant.buffer;  // every buffer is an argument of the fixed ABI
    } else if (constant.buffer >= 0) {
      // The argument of that buffer when it is one, else the buffer appended as an argument the
      // kernel never sees (the worker fills it like any input).
      out.arg = -1;
      for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
        if (spec.arguments[i].buffer == constant.buffer) out.arg = static_cast<int>(i);
      }
      if (out.arg < 0) {
        out.arg = static_cast<int>(impl.args.size());
        impl.args.push_back(buffers[static_cast<std::size_t>(constant.buffer)]);
        impl.args.back().hidden = true;
      }
    } else {
      out.dtype = dtype_named(constant.type, spec);
      out.values = constant.values;
    }
    impl.constants.push_back(out);
  }

  if (spec.check) {
    impl.tolerance = spec.check->tolerance;
    const auto& space = spec.tuning->space;
    Config config = spec.check->reference_config ? space.complete(*spec.check->reference_config)
                                                 : space.default_config();
    auto source = spec.check->source.empty() ? spec.source : spec.check->source;
    auto entry = spec.check->entry.empty() ? spec.entry : spec.check->entry;
    auto compiled = impl.compiler->compile(impl.compile_request(source, config, entry));
    if (!compiled.ok()) {
      throw std::runtime_error(checked_against(spec) + " of " + source.string() +
                               ", the reference, does not compile:\n" +
                               eval::log_excerpt(compiled.log));
    }
    std::string why;
    auto launch = impl.launch_of(config, why, spec.check->launch ? &*spec.check->launch : nullptr);
    if (!launch) {
      throw std::runtime_error(checked_against(spec) + ", the reference, has no launch: " + why);
    }
    launch->cubin = compiled.cubin.string();
    launch->kernel = compiled.symbol(entry);
    impl.reference = launch;
  }
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
