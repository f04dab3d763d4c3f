// The CPU evaluator's state and work (cutune/cpu.hpp), in three files: setting it up from a spec
// and checking the reference and the default's entry (cpu_evaluator.cpp), compiling candidates in
// the pool (cpu_compile.cpp), and measuring them in the workers, alone or in paired rounds
// (cpu_measure.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiled_source.hpp"
#include "cutune/cpu.hpp"
#include "eval/compile_pool.hpp"
#include "eval/worker_client.hpp"
#include "protocol.hpp"

namespace cutune {

namespace proto = cpu::protocol;

namespace cpu {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// 1e-09, 0.0017, 3: short enough for a one-line reason.
std::string short_number(double value);

}  // namespace cpu

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

  Impl(const KernelSpec& s, Problem p, CpuOptions o);

  // Compiling (cpu_compile.cpp).
  std::filesystem::path cache_dir() const;
  std::vector<std::string> command(const std::filesystem::path& source, const Config& config) const;
  const std::string& source_text(const std::filesystem::path& source);
  eval::CompileRequest request(const cpu::CompiledSource& what, const Config& config);
  // Compiles a batch in the pool; a config that did not compile gets its failure, one that did
  // its object's path (and an ok Measurement, to be filled by the worker).
  struct Compiled {
    Measurement failure;
    std::filesystem::path object;
  };
  std::vector<Compiled> compile(std::span<const Config> batch);

  // Measuring (cpu_measure.cpp).
  int worker_starts() const;
  Measurement measure(const std::filesystem::path& object, const proto::Timing& timing,
                      std::size_t device);
  // A worker's answer for one candidate as a Measurement (its timing, when it has one).
  Measurement from_reply(const proto::MeasureReply& answer) const;
  std::vector<Measurement> run(std::span<const Config> batch, const proto::Timing& timing);
  proto::MeasureRequest measure_request(const std::filesystem::path& object,
                                        const proto::Timing& timing);
  struct Probe {
    bool replied = false;
    std::string outcome;
    std::string detail;
  };
  // `entry` of `object` run once, checked but not timed, on the first worker.
  Probe probe(const std::filesystem::path& object, const std::string& entry);
  PairedRounds rounds(std::span<const Config> configs, int count);
  proto::Timing timing(int scale) const;
};

}  // namespace cutune
