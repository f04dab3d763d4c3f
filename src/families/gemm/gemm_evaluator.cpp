#include "gemm/gemm_evaluator.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cutune/cuda/device_worker_pool.hpp"
#include "eval/backend_support.hpp"
#include "eval/files.hpp"
#include "gemm/gemm_protocol.hpp"
#include "gemm/gemm_space.hpp"
#include "hash/content_hash.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;
namespace proto = cuda::protocol;

constexpr int kRetimeScale = 5;

// The flags gemm-bench.sh compiles with. C++17: nvcc 13's front end fails on some of gcc 12's
// C++20 library headers.
const std::vector<std::string> kNvccFlags = {"-std=c++17", "-O3"};

// The problem as the kernel family sees it; throws std::invalid_argument naming what it cannot run.
gemm::GemmProblem checked_problem(const Problem& problem) {
  const gemm::GemmProblem converted = to_gemm_problem(problem);
  // The default config is legal, so every violation left is the problem's.
  if (const auto reasons = gemm::violations(gemm::GemmConfig{}, converted); !reasons.empty()) {
    throw std::invalid_argument("gemm problem " + problem.canonical() + ": " +
                                gemm::joined(reasons));
  }
  return converted;
}

fs::path source_path(const GemmCompileOptions& options) {
  return path_setting(options.source, "CUTUNE_GEMM_SOURCE", CUTUNE_GEMM_DEVICE_SOURCE);
}

// The kernel includes ../gemm_rules.hpp and ../gemm_schedule.hpp.
std::string compiled_text(const fs::path& source) {
  return kernel_text(source, {"gemm_rules.hpp", "gemm_schedule.hpp"});
}

}  // namespace

fs::path path_setting(const fs::path& given, const char* variable, const char* built_in) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? fs::path(value) : fs::path(built_in);
}

std::string kernel_text(const fs::path& source, const std::vector<std::string>& headers) {
  const fs::path folder = source.parent_path().parent_path();
  std::string text;
  for (const std::string& header : headers) text += eval::read_file(folder / header);
  return text + "#line 1 \"" + source.filename().string() + "\"\n" + eval::read_file(source);
}

std::string kernel_text_version(const std::string& text) {
  return hash::StoredVersionHash().field(text).hex();
}

Measurement compile_failure_measurement(const cuda::CompileResult& result) {
  Measurement m;
  m.outcome = cuda::outcome_of(result.status);
  m.detail = eval::compile_failure_detail(result.log, result.log_file, result.cached);
  return m;
}

std::unique_ptr<cuda::CubinCompiler> gemm_family_compiler(GemmCompileOptions& options) {
  options.cutlass_include =
      path_setting(options.cutlass_include, "CUTUNE_CUTLASS_INCLUDE", CUTUNE_CUTLASS_INCLUDE_DIR);
  if (!fs::exists(options.cutlass_include / "cute")) {
    throw std::runtime_error("no CUTLASS headers in " + options.cutlass_include.string() +
                             " (set CUTUNE_CUTLASS_INCLUDE)");
  }
  if (options.cache_dir.empty()) options.cache_dir = eval::default_cache_dir("cuda");
  cuda::CubinCompiler::Options compile;
  compile.cache_dir = options.cache_dir;
  compile.jobs = options.jobs;
  compile.time_limit = options.time_limit;
  compile.nvcc = options.nvcc;
  return std::make_unique<cuda::CubinCompiler>(compile);
}

GemmWorkers start_gemm_workers(const GemmEvaluatorOptions& options, const std::string& family) {
  cuda::DeviceWorkerPool::Options workers;
  workers.devices = options.devices;
  workers.worker = options.worker;
  workers.watchdog = options.watchdog;
  GemmWorkers out;
  out.pool = std::make_unique<cuda::DeviceWorkerPool>(workers);
  out.report = out.pool->identical_devices();
  if (out.report.cc_major != 9 || out.report.cc_minor != 0) {
    throw std::runtime_error(family + " needs an sm_90 GPU; the worker found " + out.device_name());
  }
  return out;
}

Device GemmWorkers::device() const {
  return Device{
      report.name, report.cc_major, report.cc_minor, report.smem_optin_bytes, report.sm_count, 0};
}

std::string GemmWorkers::device_name() const {
  return cuda::protocol::device_key(report.name, report.cc_major, report.cc_minor);
}

struct GemmCompiler::State {
  GemmCompileOptions options;
  gemm::GemmProblem problem;
  std::string source_text;
  std::unique_ptr<cuda::CubinCompiler> compiler;
};

GemmCompiler::GemmCompiler(const Problem& problem, GemmCompileOptions options)
    : state_(std::make_unique<State>()) {
  options.source = source_path(options);
  state_->compiler = gemm_family_compiler(options);
  state_->problem = checked_problem(problem);
  state_->source_text = compiled_text(options.source);
  state_->options = std::move(options);
}

GemmCompiler::~GemmCompiler() = default;

cuda::CompileRequest GemmCompiler::request(const gemm::GemmConfig& config) const {
  cuda::CompileRequest request;
  request.source = state_->source_text;
  request.source_name = state_->options.source.filename().string();
  request.arch = state_->options.arch;
  request.compiler = cuda::CompilerKind::nvcc;
  for (const std::string& define :
       gemm::compile_defines(config, state_->problem.dtype, state_->problem.b_layout)) {
    const std::size_t equals = define.find('=');
    request.defines.emplace_back(define.substr(0, equals), define.substr(equals + 1));
  }
  request.include_dirs = {state_->options.cutlass_include};
  request.options = kNvccFlags;
  return request;
}

std::shared_future<cuda::CompileResult> GemmCompiler::submit(const Config& config) {
  return state_->compiler->submit(request(to_gemm_config(config)));
}

std::string GemmCompiler::toolchain() {
  std::string text =
      state_->compiler->identity(cuda::CompilerKind::nvcc) + "; " + state_->options.arch;
  for (const std::string& flag : kNvccFlags) text += " " + flag;
  return text;
}

std::string GemmCompiler::source_version() const {
  return kernel_text_version(state_->source_text);
}

std::string gemm_source_version(const GemmCompileOptions& options) {
  return kernel_text_version(compiled_text(source_path(options)));
}

const gemm::GemmProblem& GemmCompiler::problem() const { return state_->problem; }

proto::GemmRequest gemm_request(const gemm::GemmProblem& p, const GemmEvaluatorOptions& options,
                                int scale) {
  proto::GemmRequest r;
  r.m = p.m;
  r.n = p.n;
  r.k = p.k;
  r.dtype = gemm::to_string(p.dtype);
  r.b_layout = gemm::to_string(p.b_layout);
  r.seed = options.seed;
  r.tolerance = options.tolerance;
  r.timing = gemm_timing(options, scale, p.timing);
  return r;
}

proto::Timing gemm_timing(const GemmEvaluatorOptions& options, int scale, gemm::Timing regime) {
  proto::Timing timing;
  timing.budget_ms = options.budget_ms * scale;
  timing.min_reps = options.min_reps;
  timing.max_reps = options.max_reps * scale;
  timing.flush_l2 = regime == gemm::Timing::flushed;
  return timing;
}

struct GemmEvaluator::Impl {
  GemmEvaluatorOptions options;
  GemmCompiler compiler;
  std::unique_ptr<cuda::DeviceWorkerPool> workers;
  proto::DeviceReport report;
  std::atomic<std::uint64_t> next_id{1};

  Impl(const Problem& problem, GemmEvaluatorOptions given)
      : options(std::move(given)), compiler(problem, options.compile) {}

  proto::GemmRequest request(int scale) {
    proto::GemmRequest r = gemm_request(compiler.problem(), options, scale);
    r.id = next_id++;
    return r;
  }

  PairedRounds rounds(std::span<const Config> configs, int count) {
    PairedRounds out;
    out.checks.assign(configs.size(), Measurement{});
    out.rounds.assign(static_cast<std::size_t>(std::max(0, count)), TimedRound{});
    for (TimedRound& round : out.rounds) round.times_ms.assign(configs.size(), NAN);
    proto::GemmRequest r = request(1);
    r.rounds = count;
    std::vector<std::size_t> sent;  // config index of each candidate in the request
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const gemm::GemmConfig config = to_gemm_config(configs[i]);
      const auto reasons =
          gemm::violations(config, compiler.problem(), static_cast<int>(report.smem_optin_bytes));
      if (!reasons.empty()) {
        out.checks[i] = {.outcome = Outcome::invalid_config, .detail = reasons.front()};
        continue;
      }
      const cuda::CompileResult compiled = compiler.submit(configs[i]).get();
      if (!compiled.ok()) {
        out.checks[i] = compile_failure_measurement(compiled);
        continue;
      }
      r.candidates.push_back({compiled.cubin.string(), gemm::to_string(config)});
      sent.push_back(i);
    }
    // The watchdog allows four times the budget: about 25 ms per candidate and round, warm-up
    // rounds (at most 40) included.
    r.timing.budget_ms = 25.0 * static_cast<double>((count + 40) * (sent.size() + 1));
    cuda::read_paired_rounds(workers->measure(0, proto::family_request(r)), sent, out);
    out.steady_state =
        "untimed rounds until cuBLASLt's time moved by under 2 % and the SM clock "
        "by under 1 %; each round times every config and cuBLASLt " +
        std::to_string(r.reps) +
        (r.timing.flush_l2 ? " times from a flushed L2" : " times back to back, L2 not flushed") +
        ", median kept";
    return out;
  }

  std::vector<Measurement> run(std::span<const Config> batch, int scale) {
    std::vector<Measurement> out(batch.size());
    std::vector<std::optional<gemm::GemmConfig>> configs(batch.size());
    std::vector<std::shared_future<cuda::CompileResult>> compiles(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const gemm::GemmConfig config = to_gemm_config(batch[i]);
      const auto reasons =
          gemm::violations(config, compiler.problem(), static_cast<int>(report.smem_optin_bytes));
      if (!reasons.empty()) {
        out[i].outcome = Outcome::invalid_config;
        out[i].detail = gemm::joined(reasons);
        continue;
      }
      configs[i] = config;
      compiles[i] = compiler.submit(batch[i]);
    }
    // Each worker takes the next candidate, waits for its cubin, and measures it while the rest
    // still compile.
    std::mutex merge;
    eval::for_each_on_slots(workers->size(), batch.size(), [&](std::size_t slot, std::size_t i) {
      if (!configs[i]) return;
      const cuda::CompileResult& compiled = compiles[i].get();
      Measurement m;
      if (!compiled.ok()) {
        m = compile_failure_measurement(compiled);
      } else {
        proto::GemmRequest r = request(scale);
        r.cubin = compiled.cubin.string();
        r.config = gemm::to_string(*configs[i]);
        m = workers->measure(slot, proto::family_request(r)).measurement;
      }
      m.compile_s = compiled.compile_s;
      std::lock_guard lock(merge);
      out[i] = std::move(m);
    });
    return out;
  }
};

GemmEvaluator::GemmEvaluator(const Problem& problem, GemmEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(problem, std::move(options))) {
  GemmWorkers started = start_gemm_workers(impl_->options, "the Hopper GEMM family");
  impl_->workers = std::move(started.pool);
  impl_->report = started.report;
}

GemmEvaluator::~GemmEvaluator() = default;

std::vector<Measurement> GemmEvaluator::evaluate(std::span<const Config> batch) {
  return impl_->run(batch, 1);
}

std::vector<Measurement> GemmEvaluator::retime(std::span<const Config> batch) {
  return impl_->run(batch, kRetimeScale);
}

PairedRounds GemmEvaluator::time_rounds(std::span<const Config> configs, int rounds) {
  return impl_->rounds(configs, rounds);
}

Measurement GemmEvaluator::time_cublas(int scale) {
  proto::GemmRequest r = impl_->request(scale);
  r.cublas_only = true;
  return impl_->workers->measure(0, proto::family_request(r)).measurement;
}

std::string GemmEvaluator::device_name() const {
  return cuda::protocol::device_key(impl_->report.name, impl_->report.cc_major,
                                    impl_->report.cc_minor);
}

std::string GemmEvaluator::toolchain() const {
  return cuda::protocol::toolchain_key(impl_->compiler.toolchain(), impl_->report.driver_version);
}

Device GemmEvaluator::device() const {
  const proto::DeviceReport& r = impl_->report;
  return Device{r.name, r.cc_major, r.cc_minor, r.smem_optin_bytes, r.sm_count, 0};
}

GemmCompiler& GemmEvaluator::compiler() { return impl_->compiler; }

}  // namespace cutune
