// The CUDA backend: tunes a CUDA kernel described by a spec (cutune/spec.hpp, backend "cuda").
//
// Each candidate is compiled to a cubin for the device's architecture (sm_90a on an H200) by
// NVRTC (spec "compile": {"compiler": "nvrtc"}) or nvcc (the default), knob values passed as -D
// definitions, in a pool of compile processes cached on disk (cutune/cuda/compile.hpp). With
// NVRTC, an entry with template arguments ("matmul<TILE, 4>") is a name expression: the knobs'
// macros expand inside it. One worker process per GPU (cutune/cuda/device_worker_pool.hpp) loads
// the cubin, restores seeded inputs, poisons the outputs, launches with cuLaunchKernelEx (the
// spec's grid, block, cluster and dynamic shared memory), compares with the reference and times
// the kernel with events, L2 flushed before every repetition. A fault kills only the worker (the
// candidate is a crash, a fresh worker starts), a hang is killed by the watchdog, and
// measurements already taken are kept.
//
// Kernel ABI: the spec's buffers as device pointers in their order, then its scalars as 64-bit
// integers (long long) in their order. A reference kernel named by "check": {"entry": ...} is
// launched with the shape of the default config, so it must cover the problem whatever the
// shape (a grid-stride loop).
//
// Knob definitions are those of the CPU backend (cutune/cpu.hpp).
//
// Compile and measure overlap: a batch's compiles all start at once, and each candidate is
// measured as soon as its cubin is ready, while the rest still compile.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cutune/cuda/compile.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/spec.hpp"

namespace cutune {

struct CudaOptions {
  // Cubins and compiler logs. Empty: $XDG_CACHE_HOME/cutune/cuda or ~/.cache/cutune/cuda.
  std::filesystem::path cache_dir;
  unsigned jobs = 0;            // concurrent compiles; 0: one per core
  std::vector<int> devices{0};  // CUDA ordinals; one worker each, candidates spread over them
  // The worker program. Empty: $CUTUNE_CUDA_WORKER, else the one this library was built with.
  std::filesystem::path worker;
  std::uint64_t seed = 1;  // input values
  std::string arch;        // empty: the device's, e.g. sm_90a
};

// Where the time went, summed over every candidate evaluated so far.
struct CudaEvaluationStats {
  std::size_t candidates = 0;
  std::size_t measured = 0;   // candidates that reached a worker
  double wall_s = 0;          // inside evaluate() and retime()
  double compile_s = 0;       // compiler wall time summed over candidates (0 for cache hits)
  double compile_wait_s = 0;  // the device side waiting for a cubin
  double kernel_s = 0;        // running candidates: check launch, warm-up, timed repetitions
  int worker_starts = 0;

  // Tuner time per candidate that is neither compiling nor running the kernel.
  double overhead_ms_per_candidate() const;
};

// A spec kernel's launch for (config, problem) on `device`, from the spec's launch expressions:
// grid, block and cluster dimensions whole numbers of at least 1, dynamic shared memory of at
// least 0, all below 2^31.
struct LaunchShape {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::array<std::uint32_t, 3> cluster{1, 1, 1};
  std::uint32_t shared_bytes = 0;
};
// Throws std::invalid_argument naming the expression and its value when one breaks those rules.
LaunchShape launch_shape(const KernelSpec& spec, const Config& config, const Problem& problem,
                         const Device& device);

class CudaEvaluator : public Evaluator {
 public:
  // Starts the workers and compiles the reference. Throws std::invalid_argument for a spec it
  // cannot serve, std::runtime_error when no worker starts or the reference does not compile.
  CudaEvaluator(const KernelSpec& spec, Problem problem, CudaOptions options = {});
  ~CudaEvaluator() override;

  std::vector<Measurement> evaluate(std::span<const Config> batch) override;
  // Compiles without measuring, all at once: the next batch while the device measures this one
  // (evaluate() then finds the cubins cached), or compile throughput. Results in order.
  std::vector<cuda::CompileResult> compile(std::span<const Config> batch);
  // Five times the timing budget and repetitions of the spec.
  std::vector<Measurement> retime(std::span<const Config> batch) override;
  // Every config compiled, then checked and timed in paired rounds by one worker (slot 0's) after
  // a warm-up that waits for the first config's time and the SM clock to settle; L2 flushed
  // before every launch. A config that does not compile, has no launch or fails its check keeps
  // that failure in `checks`. Never throws for a bad config.
  PairedRounds time_rounds(std::span<const Config> configs, int rounds) override;
  std::string device_name() const override;
  std::string toolchain() const override;

  const CudaEvaluationStats& stats() const;
  // The measuring GPU as constraints and seeds see it (slot 0's, from its worker).
  const Device& device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
