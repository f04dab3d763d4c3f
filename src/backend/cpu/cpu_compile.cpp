// Compiling a CPU evaluator's candidates: one command per config, keyed by everything the object
// depends on, run in the shared compile pool; a compile's failure is its config's measurement.
#include <fmt/format.h>

#include <cstdlib>

#include "cpu_evaluator_impl.hpp"
#include "eval/backend_support.hpp"
#include "eval/files.hpp"
#include "hash/content_hash.hpp"

namespace cutune {

using cpu::Clock;
using cpu::seconds_since;
using cpu::short_number;

std::filesystem::path CpuEvaluator::Impl::cache_dir() const {
  return options.cache_dir.empty() ? eval::default_cache_dir("cpu") : options.cache_dir;
}

std::vector<std::string> CpuEvaluator::Impl::command(const std::filesystem::path& source,
                                                     const Config& config) const {
  std::vector<std::string> argv{spec.compile.compiler};
  argv.insert(argv.end(), options.base_flags.begin(), options.base_flags.end());
  argv.insert(argv.end(), spec.compile.flags.begin(), spec.compile.flags.end());
  for (const auto& definition : knob_definitions(config)) argv.push_back("-D" + definition);
  argv.insert(argv.end(), {source.string(), "-o", "{output}"});
  return argv;
}

const std::string& CpuEvaluator::Impl::source_text(const std::filesystem::path& source) {
  auto found = sources.find(source);
  if (found == sources.end()) {
    found = sources.emplace(source, eval::read_file(source)).first;
    input_hashes[source] = hash::content_hash(found->second).hex();
  }
  return found->second;
}

eval::CompileRequest CpuEvaluator::Impl::request(const cpu::CompiledSource& what,
                                                 const Config& config) {
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

std::vector<CpuEvaluator::Impl::Compiled> CpuEvaluator::Impl::compile(
    std::span<const Config> batch) {
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

}  // namespace cutune
