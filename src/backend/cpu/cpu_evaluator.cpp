// The CPU evaluator set up from a spec: its buffers, scalars and arguments for the worker, the
// compiler's identity in every key, the reference compiled and run once, and the default config's
// entry checked before any budget is spent; and the evaluator's public face over Impl.
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "cpu_evaluator_impl.hpp"
#include "cutune/space.hpp"
#include "eval/backend_support.hpp"
#include "eval/child_process.hpp"
#include "eval/files.hpp"
#include "hash/content_hash.hpp"

namespace cutune {
namespace {

std::filesystem::path find_worker(const std::filesystem::path& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("CUTUNE_CPU_WORKER"); env != nullptr && env[0] != '\0') {
    return env;
  }
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    auto beside = self.parent_path() / "cutune-cpu-worker";
    if (std::filesystem::exists(beside)) return beside;
  }
  return CUTUNE_CPU_WORKER_BUILD_PATH;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown cpu";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

double default_tolerance(const std::string& type) {
  if (type == "f64") return 1e-9;
  if (type == "f32") return 1e-4;
  return 0;  // integers must match exactly
}

}  // namespace

namespace cpu {

// 1e-09, 0.0017, 3: short enough for a one-line reason.
std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace cpu

CpuEvaluator::Impl::Impl(const KernelSpec& s, Problem p, CpuOptions o)
    : spec(s),
      problem(std::move(p)),
      options(std::move(o)),
      pool(options.cache_dir.empty() ? eval::default_cache_dir("cpu") : options.cache_dir,
           options.jobs),
      workers() {
  for (unsigned d = 0; d < std::max(1u, options.devices); ++d) {
    workers.push_back(
        std::make_unique<eval::WorkerClient>(std::vector{find_worker(options.worker).string()},
                                             std::filesystem::path(), /*tagged=*/true));
  }
}

double CpuEvaluationStats::overhead_ms_per_candidate() const {
  if (candidates == 0) return 0;
  return (wall_s - compile_wall_s - kernel_s - flush_s) * 1e3 / static_cast<double>(candidates);
}

CpuEvaluator::CpuEvaluator(const KernelSpec& spec, Problem problem, CpuOptions options) {
  if (spec.backend != "cpu") {
    throw std::invalid_argument(spec.path.string() + ": the spec targets backend '" + spec.backend +
                                "', not cpu");
  }
  impl_ = std::make_unique<Impl>(spec, spec.resolve(problem), std::move(options));
  auto& impl = *impl_;
  auto device = Device::host_cpu();

  double bytes = 0;  // the buffers' total
  double held = 0;   // with the worker's copies of them
  for (const auto& buffer : spec.buffers) {
    if (!proto::is_element_type(buffer.type)) {
      throw std::invalid_argument(spec.path.string() + ": buffer '" + buffer.name + "' has type " +
                                  buffer.type +
                                  "; the cpu backend takes f64, f32, i32, i64, u32, u8");
    }
    double count = buffer.count.evaluate(impl.problem, device);
    if (!(count >= 1) || count > 1e12) {
      throw std::invalid_argument(spec.path.string() + ": buffer '" + buffer.name + "' size '" +
                                  buffer.count.text() + "' is " + std::to_string(count));
    }
    impl.buffers.push_back(
        {buffer.name, buffer.type, static_cast<std::uint64_t>(std::llround(count)),
         std::string(to_string(buffer.role)), std::string(to_string(buffer.fill))});
    if (is_compared(buffer.role)) {
      impl.tolerance = std::max(impl.tolerance, default_tolerance(buffer.type));
    }
    const double size = count * static_cast<double>(proto::element_size(buffer.type));
    bytes += size;
    held += size * (1 + (is_filled(buffer.role) ? 1 : 0) + (is_compared(buffer.role) ? 1 : 0));
  }
  // Once here rather than once per candidate: the worker keeps a copy of every buffer it fills
  // (to restore it) and of every buffer it compares (the reference's), and all must fit.
  const double memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
                        static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (held > memory) {
    throw std::invalid_argument(fmt::format(
        "{}: the buffers of problem {} take {:.3g} GB ({:.3g} GB with the worker's copies), more "
        "than this machine's {:.3g} GB of memory",
        spec.path.string(), impl.problem.canonical(), bytes / 1e9, held / 1e9, memory / 1e9));
  }
  for (const auto& scalar : spec.scalars) {
    impl.scalars.push_back(std::llround(scalar.evaluate(impl.problem, device)));
  }
  impl.arguments = cpu::worker_arguments(spec, impl.problem);
  impl.kernel = cpu::compiled_source(spec, spec.source, spec.entry, impl.cache_dir());

  auto version =
      eval::run_with_limit({spec.compile.compiler, "--version"}, std::chrono::seconds(30));
  if (!version.status.success()) {
    throw std::runtime_error("cannot run the compiler '" + spec.compile.compiler +
                             "': " + first_line(version.output));
  }
  impl.compiler_version = first_line(version.output);
  impl.machine = cpu_model();
  hash::ContentHash base;
  base.field(version.output).field(impl.machine);
  for (const auto& depend : spec.compile.depends) {
    const std::string text = eval::read_file(depend);
    base.field(text);
    impl.input_hashes[depend] = hash::content_hash(text).hex();
  }
  impl.key_base = base.hex();

  if (spec.check) {
    if (spec.check->tolerance >= 0) impl.tolerance = spec.check->tolerance;
    const auto& space = spec.tuning->space;
    Config config = spec.check->reference_config ? space.complete(*spec.check->reference_config)
                                                 : space.default_config();
    auto source = spec.check->source.empty() ? spec.source : spec.check->source;
    auto entry = spec.check->entry.empty() ? spec.entry : spec.check->entry;
    const auto reference = cpu::compiled_source(spec, source, entry, impl.cache_dir());
    auto result = impl.pool.submit(impl.request(reference, config)).get();
    if (result.status != eval::CompileResult::Status::ok) {
      throw std::runtime_error(checked_against(spec) + " of " + source.string() +
                               ", the reference, does not compile:\n" +
                               eval::log_excerpt(result.log));
    }
    impl.reference = proto::Kernel{result.output.string(), reference.symbol};
    impl.setup_compiles[result.key_hash] = result.wall_s;
    // The reference checked against itself, once: a missing entry symbol is one clear error here
    // rather than a refusal on every candidate.
    const auto [replied, outcome, detail] = impl.probe(result.output, reference.symbol);
    if (!replied || outcome != "ok") {
      throw std::runtime_error(fmt::format("{}: {} of {}, the reference, cannot run: {}",
                                           spec.path.string(), checked_against(spec),
                                           source.string(), detail));
    }
    if (entry == spec.entry && source == spec.source) return;  // the candidates' entry too
  }
  // The default config's entry, before any budget is spent: a misspelt entry would fail every
  // candidate of a whole tune. A default that does not compile is a candidate's failure, left to
  // the tune.
  const Config config = spec.tuning->space.default_config();
  const auto compiled = impl.pool.submit(impl.request(impl.kernel, config)).get();
  if (compiled.status != eval::CompileResult::Status::ok) {
    // Through a call shim a misspelt entry is a compile error, the same for every config.
    // (g++ quotes it in ASCII, or in typographic quotes under a UTF-8 locale)
    const bool undeclared =
        compiled.log.find(spec.entry + "' was not declared") != std::string::npos ||
        compiled.log.find(spec.entry + "\u2019 was not declared") != std::string::npos;
    if (!spec.arguments.empty() && undeclared) {
      throw std::invalid_argument(fmt::format(
          "{}: entry '{}': the kernel {} declares no function of that name (checked on the "
          "default config)",
          spec.path.string(), spec.entry, spec.source.string()));
    }
    return;
  }
  impl.setup_compiles.emplace(compiled.key_hash, compiled.wall_s);  // the reference's, if it was
  const auto [replied, outcome, detail] = impl.probe(compiled.output, impl.kernel.symbol);
  if (replied && outcome == "launch_error" && detail.rfind("no symbol", 0) == 0) {
    throw std::invalid_argument(fmt::format(
        "{}: entry '{}': the kernel {} defines no function of that name (checked on the default "
        "config; is it declared extern \"C\"?)",
        spec.path.string(), spec.entry, spec.source.string()));
  }
}

CpuEvaluator::~CpuEvaluator() = default;

std::vector<Measurement> CpuEvaluator::evaluate(std::span<const Config> batch) {
  return impl_->run(batch, impl_->timing(1));
}

std::vector<Measurement> CpuEvaluator::retime(std::span<const Config> batch) {
  return impl_->run(batch, impl_->timing(5));
}

PairedRounds CpuEvaluator::time_rounds(std::span<const Config> configs, int rounds) {
  return impl_->rounds(configs, rounds);
}

std::string CpuEvaluator::device_name() const { return "cpu: " + impl_->machine; }

std::string CpuEvaluator::toolchain() const {
  std::string flags;
  for (const auto& flag : impl_->options.base_flags) flags += " " + flag;
  for (const auto& flag : impl_->spec.compile.flags) flags += " " + flag;
  return impl_->compiler_version + ";" + flags;
}

const CpuEvaluationStats& CpuEvaluator::stats() const { return impl_->stats; }

std::vector<std::string> CpuEvaluator::compile_command(const Config& config) const {
  return impl_->command(impl_->kernel.file, config);
}

}  // namespace cutune
