// The CPU backend: tunes a C++ kernel described by a spec (cutune/spec.hpp) on this machine.
//
// Each candidate is compiled by the system C++ compiler into a shared object, knob values passed
// as -D definitions, in a pool of compile jobs cached on disk. A worker process
// (`cutune-cpu-worker`) loads it with dlopen, runs it on seeded inputs with poisoned outputs,
// compares the outputs with the reference, and times it. A candidate that crashes or hangs takes
// only the worker down: it is recorded as a crash (with the signal) or a hang, a new worker
// starts, and the tune goes on.
//
// Kernel ABI (candidates and reference kernels alike):
//   extern "C" void ENTRY(void** buffers, const std::int64_t* scalars);
// `buffers` in the order of the spec's buffers, `scalars` in the order of its scalars.
//
// Knob definitions: an integer or real knob K is -DK=value; a boolean is -DK=0 or 1; a string
// enum is -DK=text (a token) and, when K_text is an identifier, -DK_text=1; a list or
// permutation is -DK_0=.. -DK_1=.. and -DK={..,..} (a braced initializer).
//
// Compile and timing do not overlap on the CPU (they would share cores and disturb the timing):
// a batch is compiled in parallel first, then measured one candidate at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/evaluator.hpp"
#include "cutune/spec.hpp"

namespace cutune {

struct CpuOptions {
  // Compiled objects and compiler logs. Empty: $XDG_CACHE_HOME/cutune/cpu or ~/.cache/cutune/cpu.
  std::filesystem::path cache_dir;
  unsigned jobs = 0;  // concurrent compiles; 0: one per core
  // The worker program. Empty: $CUTUNE_CPU_WORKER, else cutune-cpu-worker next to the running
  // program, else the one this library was built with.
  std::filesystem::path worker;
  std::uint64_t seed = 1;  // input values
  // Worker processes that measure, each a "device": a batch compiles once in the shared pool,
  // then its candidates are spread over the devices, measured at once, and tagged with the device
  // (Measurement::device); paired rounds run on device 0 only. Several GPUs' code path without a
  // GPU: on one CPU the devices share its cores, so for timing that matters keep 1.
  unsigned devices = 1;
  // Flags before the spec's own (which can override them, e.g. -O2).
  std::vector<std::string> base_flags{"-std=c++20", "-O3", "-march=native", "-shared", "-fPIC"};
};

// Where a batch's wall time went, summed over every candidate evaluated so far.
struct CpuEvaluationStats {
  std::size_t candidates = 0;
  std::size_t measured = 0;   // candidates that reached the worker
  double wall_s = 0;          // inside evaluate() and retime()
  double compile_s = 0;       // compiler wall time summed over candidates (0 for cache hits)
  double compile_wall_s = 0;  // waiting for the compile pool (compiles run in parallel)
  double kernel_s = 0;        // inside candidate kernel calls (check, warm-up, timed runs)
  double flush_s = 0;         // evicting the cache between timed runs
  double worker_s = 0;        // inside the worker, from a request's receipt to its reply
  int worker_starts = 0;

  // Tuner time per candidate that is neither compiling, nor kernel, nor cache eviction.
  double overhead_ms_per_candidate() const;
};

// The spec's source or one of its depends changed while a tune ran: results of the new bytes would
// be stored under the old family version, so evaluate(), retime() and time_rounds() throw this
// before measuring anything of the batch. what() names the file, the spec and the version.
class SourceChanged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CpuEvaluator : public Evaluator {
 public:
  // Compiles the reference (when the spec has a check), runs it once, and checks that the backend
  // can serve the spec. Throws std::invalid_argument for a spec it cannot serve (not a cpu spec,
  // an element type the CPU worker lacks, buffers twice the size of which exceed this machine's
  // memory) and std::runtime_error when the reference does not compile or cannot run (a missing
  // entry symbol); both name the spec file. Candidate failures are Measurements, never throws;
  // the exception is SourceChanged.
  CpuEvaluator(const KernelSpec& spec, Problem problem, CpuOptions options = {});
  ~CpuEvaluator() override;

  std::vector<Measurement> evaluate(std::span<const Config> batch) override;
  // Five times the timing budget and repetitions of the spec.
  std::vector<Measurement> retime(std::span<const Config> batch) override;
  // All configs loaded in one worker; untimed rounds until the first config's time settles, then
  // every round times each config a few times from a flushed cache (the spec's flush_cache) in a
  // rotated order. A worker that dies or hangs fails every config of the call with its reason.
  PairedRounds time_rounds(std::span<const Config> configs, int rounds) override;
  std::string device_name() const override;
  std::string toolchain() const override;

  const CpuEvaluationStats& stats() const;
  // The compiler command line for a config (with "{output}" for the object's path).
  std::vector<std::string> compile_command(const Config& config) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
