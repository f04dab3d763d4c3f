#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "compiled_source.hpp"
#include "cutune/cpu.hpp"
#include "cutune/space.hpp"
#include "eval/backend_support.hpp"
#include "eval/child_process.hpp"
#include "eval/compile_pool.hpp"
#include "eval/files.hpp"
#include "eval/worker_client.hpp"
#include "hash/content_hash.hpp"
#include "protocol.hpp"

namespace cutune {
namespace {

namespace proto = cpu::protocol;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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

// Measurements retried after the worker was killed from outside (eval::WorkerReply) or ran past
// its limit starved by other work (eval/starvation.hpp).
constexpr int kOutsideKillRetries = 2;

double default_tolerance(const std::string& type) {
  if (type == "f64") return 1e-9;
  if (type == "f32") return 1e-4;
  return 0;  // integers must match exactly
}

// 1e-09, 0.0017, 3: short enough for a one-line reason.
std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace

double CpuEvaluationStats::overhead_ms_per_candidate() const {
  if (candidates == 0) return 0;
  return (wall_s - compile_wall_s - kernel_s - flush_s) * 1e3 / static_cast<double>(candidates);
}

struct CpuEvaluator::Impl {
  const KernelSpec& spec;
  Problem problem;
  CpuOptions options;
  std::string compiler_version;
  std::string machine;
  std::string key_base;  // compiler, machine, source and headers: what every object depends on
  eval::CompilePool pool;
  // One per device (CpuOptions::devices); the first also runs the paired rounds.
  std::vector<std::unique_ptr<eval::WorkerClient>> workers;
  std::mutex stats_mutex;  // workers measure in threads of their own
  std::optional<proto::Kernel> reference;
  std::vector<proto::Buffer> buffers;
  std::vector<std::int64_t> scalars;
  std::vector<proto::Argument> arguments;
  cpu::CompiledSource kernel;  // what candidates compile and the worker calls
  double tolerance = 0;
  std::atomic<std::uint64_t> next_id = 1;
  CpuEvaluationStats stats;
  std::map<std::filesystem::path, std::string> sources;  // read once per evaluator
  // Every file a compile reads, with the content hash of the bytes the keys name (sources are
  // added as they are first read): the pool checks them around each compile.
  std::map<std::filesystem::path, std::string> input_hashes;
  // Objects the constructor compiled (the reference config, the default's entry probe), by key
  // hash, with the compile's seconds: the search's compile of the same config is then a cache
  // hit, and its measurement carries these seconds instead of 0 (an export's compile_time).
  std::map<std::string, double> setup_compiles;

  Impl(const KernelSpec& s, Problem p, CpuOptions o)
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

  int worker_starts() const {
    int starts = 0;
    for (const auto& worker : workers) starts += worker->starts();
    return starts;
  }

  std::filesystem::path cache_dir() const {
    return options.cache_dir.empty() ? eval::default_cache_dir("cpu") : options.cache_dir;
  }

  std::vector<std::string> command(const std::filesystem::path& source,
                                   const Config& config) const {
    std::vector<std::string> argv{spec.compile.compiler};
    argv.insert(argv.end(), options.base_flags.begin(), options.base_flags.end());
    argv.insert(argv.end(), spec.compile.flags.begin(), spec.compile.flags.end());
    for (const auto& definition : knob_definitions(config)) argv.push_back("-D" + definition);
    argv.insert(argv.end(), {source.string(), "-o", "{output}"});
    return argv;
  }

  const std::string& source_text(const std::filesystem::path& source) {
    auto found = sources.find(source);
    if (found == sources.end()) {
      found = sources.emplace(source, eval::read_file(source)).first;
      input_hashes[source] = hash::content_hash(found->second).hex();
    }
    return found->second;
  }

  eval::CompileRequest request(const cpu::CompiledSource& what, const Config& config) {
    eval::CompileRequest out;
    out.command = command(what.file, config);
    hash::ContentHash key;
    key.field(key_base).field(source_text(what.source));
    for (const auto& arg : out.command) key.field(arg);
    out.key = key.hex();
    out.extension = ".so";
    out.limit = std::chrono::milliseconds(static_cast<long long>(spec.compile.timeout_s * 1e3));
    out.inputs.assign(input_hashes.begin(), input_hashes.end());
    return out;
  }

  Measurement measure(const std::filesystem::path& object, const proto::Timing& timing,
                      std::size_t device) {
    auto limit = std::chrono::milliseconds(static_cast<long long>(spec.timing.timeout_s * 1e3));
    eval::WorkerReply reply;
    int attempts = 0;
    // A worker killed from outside, or one that ran past its limit starved by other work on the
    // machine, says nothing of the candidate: measure it again, a few times.
    const auto machine_stopped = [&] {
      return reply.killed_from_outside() ||
             (reply.status == eval::WorkerReply::Status::timeout && reply.starvation.starved);
    };
    while (attempts <= kOutsideKillRetries) {
      reply = workers[device]->request(measure_request(object, timing), limit);
      ++attempts;
      // A stretched try that got the first limit's worth of CPU ran long enough to be judged.
      if (reply.starvation.cpu_s >= 0.5 * spec.timing.timeout_s) reply.starvation.starved = false;
      if (!machine_stopped()) break;
      // Starved: at the same share of the machine, the next try gets about its limit in CPU.
      limit = std::chrono::milliseconds(
          static_cast<long long>(spec.timing.timeout_s * 1e3 * reply.starvation.stretch));
    }
    std::lock_guard lock(stats_mutex);  // workers measure in threads of their own
    stats.measured += static_cast<std::size_t>(attempts);

    if (reply.status == eval::WorkerReply::Status::timeout && reply.starvation.starved) {
      return {.outcome = Outcome::transient,
              .detail = fmt::format("ran past its limit {} times while other work starved it "
                                    "(the last time {}): {}",
                                    attempts, reply.starvation.detail, reply.detail)};
    }
    if (reply.status == eval::WorkerReply::Status::timeout) {
      return {.outcome = Outcome::hang,
              .detail = fmt::format("{} ({})", reply.detail, reply.starvation.detail)};
    }
    if (reply.killed_from_outside()) {
      return {.outcome = Outcome::transient,
              .detail = fmt::format("killed from outside {} times: {}", kOutsideKillRetries + 1,
                                    reply.detail)};
    }
    if (reply.status == eval::WorkerReply::Status::died) {
      return {.outcome = Outcome::crash, .detail = reply.detail};
    }
    auto answer = reply.body.get<proto::MeasureReply>();
    stats.kernel_s += answer.kernel_ms / 1e3;
    stats.flush_s += answer.flush_ms / 1e3;
    stats.worker_s += answer.worker_ms / 1e3;
    return from_reply(answer);
  }

  // A worker's answer for one candidate as a Measurement (its timing, when it has one).
  Measurement from_reply(const proto::MeasureReply& answer) const {
    Measurement m;
    if (answer.max_rel_error >= 0) m.max_rel_error = answer.max_rel_error;
    m.detail = answer.detail;
    if (answer.outcome == "ok") {
      m.outcome = Outcome::ok;
      if (answer.repetitions > 0) m.take_timing(answer);
    } else if (answer.outcome == "wrong_result") {
      m.outcome = Outcome::wrong_result;
      m.detail += " (max relative error " + short_number(answer.max_rel_error) + ", tolerance " +
                  short_number(tolerance) + ")";
    } else {
      m.outcome = Outcome::launch_error;
      if (answer.outcome != "launch_error") m.detail = "the worker refused: " + m.detail;
    }
    return m;
  }

  // Compiles a batch in the pool; a config that did not compile gets its failure, one that did
  // its object's path (and an ok Measurement, to be filled by the worker).
  struct Compiled {
    Measurement failure;
    std::filesystem::path object;
  };
  std::vector<Compiled> compile(std::span<const Config> batch) {
    std::vector<eval::CompileRequest> requests;
    requests.reserve(batch.size());
    for (const auto& config : batch) requests.push_back(request(kernel, config));
    auto compile_start = Clock::now();
    auto compiled = pool.compile(requests);
    stats.compile_wall_s += seconds_since(compile_start);
    std::vector<Compiled> out;
    for (const auto& result : compiled) {
      if (result.status == eval::CompileResult::Status::input_changed) {
        // Results of the new bytes would be filed under the old version: stop the tune instead.
        throw SourceChanged(fmt::format(
            "{}; {} was loaded with version {}, and every result stored so far is of those "
            "bytes. Nothing compiled from the new bytes was measured or stored: run the tune "
            "again to tune the new version.",
            result.log, spec.path.string(), spec.version));
      }
      Compiled c;
      stats.compile_s += result.wall_s;
      c.failure.compile_s = result.wall_s;
      if (const auto setup = setup_compiles.find(result.key_hash);
          result.cached && setup != setup_compiles.end()) {
        c.failure.compile_s = setup->second;
        setup_compiles.erase(setup);
      }
      if (result.status == eval::CompileResult::Status::error) {
        c.failure.outcome = Outcome::compile_error;
        c.failure.detail = eval::compile_failure_detail(result.log, result.log_file, result.cached);
      } else if (result.status == eval::CompileResult::Status::transient) {
        c.failure.outcome = Outcome::transient;
        c.failure.detail = fmt::format(
            "the compile failed {} times for want of the machine, not "
            "for the source (not cached):\n{}",
            result.tries, eval::log_excerpt(result.log));
      } else if (result.status == eval::CompileResult::Status::timeout) {
        c.failure.outcome = Outcome::compile_timeout;
        c.failure.detail = "the compiler was killed after " + short_number(spec.compile.timeout_s) +
                           " s (" + result.starvation.detail + ")";
      } else {
        c.object = result.output;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  std::vector<Measurement> run(std::span<const Config> batch, const proto::Timing& timing) {
    auto start = Clock::now();
    std::vector<Compiled> compiled = compile(batch);
    std::vector<Measurement> out(compiled.size());
    std::vector<std::size_t> to_measure;
    for (std::size_t i = 0; i < compiled.size(); ++i) {
      out[i] = compiled[i].failure;
      if (!compiled[i].object.empty()) to_measure.push_back(i);
    }
    // The compiled candidates in turn over the devices, each device measuring its share in order
    // in a thread of its own.
    const auto measure_share = [&](std::size_t device) {
      for (std::size_t k = device; k < to_measure.size(); k += workers.size()) {
        const std::size_t i = to_measure[k];
        out[i] = measure(compiled[i].object, timing, device);
        out[i].compile_s = compiled[i].failure.compile_s;
        out[i].device = static_cast<int>(device);
        out[i].device_name = "cpu worker";
      }
    };
    {
      std::vector<std::jthread> others;
      for (std::size_t d = 1; d < workers.size(); ++d) others.emplace_back(measure_share, d);
      measure_share(0);
    }
    stats.candidates += batch.size();
    stats.worker_starts = worker_starts();
    stats.wall_s += seconds_since(start);
    return out;
  }

  proto::MeasureRequest measure_request(const std::filesystem::path& object,
                                        const proto::Timing& timing) {
    proto::MeasureRequest request;
    request.id = next_id++;
    request.candidate = {object.string(), kernel.symbol};
    request.reference = reference;
    request.buffers = buffers;
    request.scalars = scalars;
    request.arguments = arguments;
    request.seed = options.seed;
    request.tolerance = tolerance;
    request.timing = timing;
    return request;
  }

  struct Probe {
    bool replied = false;
    std::string outcome;
    std::string detail;
  };

  // `entry` of `object` run once, checked but not timed, on the first worker.
  Probe probe(const std::filesystem::path& object, const std::string& entry) {
    proto::MeasureRequest request = measure_request(object, timing(1));
    request.candidate.entry = entry;
    request.time = false;
    const auto limit =
        std::chrono::milliseconds(static_cast<long long>(spec.timing.timeout_s * 1e3));
    const eval::WorkerReply reply = workers.front()->request(request, limit);
    if (reply.status != eval::WorkerReply::Status::ok || !reply.body.is_object()) {
      return {false, "", reply.detail};
    }
    return {true, reply.body.value("outcome", std::string()),
            reply.body.value("detail", std::string())};
  }

  PairedRounds rounds(std::span<const Config> configs, int count) {
    auto start = Clock::now();
    PairedRounds out;
    std::vector<Compiled> compiled = compile(configs);
    proto::RoundsRequest request;
    request.base = measure_request({}, timing(1));
    request.rounds = count;
    std::vector<std::size_t> sent;  // config index of each candidate in the request
    for (std::size_t i = 0; i < compiled.size(); ++i) {
      out.checks.push_back(compiled[i].failure);
      if (compiled[i].object.empty()) continue;
      request.candidates.push_back({compiled[i].object.string(), kernel.symbol});
      sent.push_back(i);
    }
    out.steady_state = fmt::format(
        "untimed rounds until the first config's round time moved by under {:.0f}% (at most {}); "
        "each round times every config {} times from a {} cache, median kept",
        request.settled * 100, request.max_warmup_rounds, request.reps,
        spec.timing.flush_cache ? "flushed" : "warm");
    // Every round of every candidate, each bounded as one measurement would be.
    const auto limit = std::chrono::milliseconds(static_cast<long long>(
        spec.timing.timeout_s * 1e3 *
        static_cast<double>(std::max<std::size_t>(1, sent.size()) *
                            static_cast<std::size_t>(count + request.max_warmup_rounds))));
    auto reply = workers.front()->request(request, limit);
    out.rounds.assign(static_cast<std::size_t>(count), TimedRound{});
    for (TimedRound& round : out.rounds) round.times_ms.assign(configs.size(), NAN);
    if (reply.status != eval::WorkerReply::Status::ok) {
      const bool timeout = reply.status == eval::WorkerReply::Status::timeout;
      const Outcome outcome = timeout && !reply.starvation.starved     ? Outcome::hang
                              : timeout || reply.killed_from_outside() ? Outcome::transient
                                                                       : Outcome::crash;
      for (std::size_t i : sent) out.checks[i] = {.outcome = outcome, .detail = reply.detail};
    } else {
      auto answer = reply.body.get<proto::RoundsReply>();
      if (answer.checks.size() != sent.size()) {
        for (std::size_t i : sent) {
          out.checks[i] = {.outcome = Outcome::launch_error,
                           .detail = "the worker refused: " + reply.body.value("detail", "")};
        }
      }
      stats.kernel_s += answer.kernel_ms / 1e3;
      stats.flush_s += answer.flush_ms / 1e3;
      stats.worker_s += answer.worker_ms / 1e3;
      out.warmup_rounds = answer.warmup_rounds;
      for (std::size_t j = 0; j < sent.size() && j < answer.checks.size(); ++j) {
        out.checks[sent[j]] = from_reply(answer.checks[j]);
        for (std::size_t r = 0; r < answer.times_ms.size() && r < out.rounds.size(); ++r) {
          const double t = answer.times_ms[r].at(j);
          if (t >= 0) out.rounds[r].times_ms[sent[j]] = t;
        }
      }
    }
    // The rounds ran on the first device: it measured every config sent there.
    for (std::size_t i : sent) {
      out.checks[i].device = 0;
      out.checks[i].device_name = "cpu worker";
    }
    stats.worker_starts = worker_starts();
    stats.wall_s += seconds_since(start);
    return out;
  }

  proto::Timing timing(int scale) const {
    proto::Timing t;
    t.warmup = spec.timing.warmup;
    t.budget_ms = spec.timing.budget_ms * scale;
    t.min_reps = spec.timing.min_reps;
    t.max_reps = spec.timing.max_reps * scale;
    t.flush_cache = spec.timing.flush_cache;
    return t;
  }
};

CpuEvaluator::CpuEvaluator(const KernelSpec& spec, Problem problem, CpuOptions options) {
  if (spec.backend != "cpu") {
    throw std::invalid_argument(spec.path.string() + ": the spec targets backend '" + spec.backend +
                                "', not cpu");
  }
  impl_ = std::make_unique<Impl>(spec, spec.resolve(problem), std::move(options));
  auto& impl = *impl_;
  auto device = Device::host_cpu();

  double bytes = 0;  // the buffers' total
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
    const char* role = buffer.role == BufferRole::input    ? "input"
                       : buffer.role == BufferRole::output ? "output"
                                                           : "scratch";
    impl.buffers.push_back({buffer.name, buffer.type,
                            static_cast<std::uint64_t>(std::llround(count)), role,
                            buffer.fill == BufferFill::zero ? "zero" : "random"});
    if (buffer.role == BufferRole::output) {
      impl.tolerance = std::max(impl.tolerance, default_tolerance(buffer.type));
    }
    bytes += count * static_cast<double>(proto::element_size(buffer.type));
  }
  // Once here rather than once per candidate: the worker keeps a second copy of every input (to
  // restore it) and output (the reference's), so twice the buffers must fit in this machine.
  const double memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
                        static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (2 * bytes > memory) {
    throw std::invalid_argument(fmt::format(
        "{}: the buffers of problem {} take {:.3g} GB (twice that in the worker), more than this "
        "machine's {:.3g} GB of memory",
        spec.path.string(), impl.problem.canonical(), bytes / 1e9, memory / 1e9));
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
      throw std::runtime_error("the reference kernel (" + source.string() +
                               ") does not compile:\n" + eval::log_excerpt(result.log));
    }
    impl.reference = proto::Kernel{result.output.string(), reference.symbol};
    impl.setup_compiles[result.key_hash] = result.wall_s;
    // The reference checked against itself, once: a missing entry symbol is one clear error here
    // rather than a refusal on every candidate.
    const auto [replied, outcome, detail] = impl.probe(result.output, reference.symbol);
    if (!replied || outcome != "ok") {
      throw std::runtime_error(fmt::format("{}: the reference kernel '{}' ({}) cannot run: {}",
                                           spec.path.string(), entry, source.string(), detail));
    }
    if (entry == spec.entry && source == spec.source) return;  // the candidates' entry too
  }
  // The default config's entry, before any budget is spent (issue 32: a misspelt entry failed
  // every candidate of a whole tune). A default that does not compile is a candidate's failure,
  // left to the tune.
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
