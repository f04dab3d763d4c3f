// Evaluates configurations of the built-in Hopper GEMM family (make_gemm_space()) on one problem:
// each config's cubin is compiled from device/hopper_gemm.cu by nvcc for sm_90a, all of a batch
// at once in the CUDA backend's compile pool (cached on disk), and each candidate is measured as
// soon as its cubin is ready by the device worker's GEMM mode (op "family", family "gemm"):
// checked against cuBLASLt on seeded random inputs with a poisoned output, then timed with events
// and L2 flushed.
// Faults, hangs and refused launches become the candidate's Measurement, as for any kernel.
#pragma once

#include <filesystem>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cutune/cuda/compile.hpp"
#include "cutune/cuda/device_worker_pool.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/gemm_types.hpp"
#include "cutune/problem.hpp"
#include "gemm/gemm_problem.hpp"
#include "gemm/gemm_protocol.hpp"

namespace cutune {

// Compiles GEMM configs to cubins; needs nvcc and the CUTLASS headers, no GPU.
class GemmCompiler {
 public:
  // Throws std::runtime_error when the kernel source or gemm_rules.hpp cannot be read.
  GemmCompiler(const Problem& problem, GemmCompileOptions options = {});
  ~GemmCompiler();

  // Queues the compile of `config` (a config of make_gemm_space()) and returns at once.
  std::shared_future<cuda::CompileResult> submit(const Config& config);
  cuda::CompileRequest request(const gemm::GemmConfig& config) const;
  // "nvcc <build>; sm_90a -std=c++17 -O3": part of the results store's key.
  std::string toolchain();
  // A hash of the kernel source and its rules header: the family version of the store's key.
  std::string source_version() const;
  const gemm::GemmProblem& problem() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// GemmCompiler::source_version() of a compiler with these options, without the compiler (no
// CUTLASS headers needed). Throws std::runtime_error when the source cannot be read.
std::string gemm_source_version(const GemmCompileOptions& options = {});

// The worker request that measures `problem` under `options` (no cubin or config yet): its shape,
// seed, tolerance and timing budget (times `scale`), L2 flushed before each launch unless
// problem.timing is back_to_back. Every request of the evaluator, the paired rounds' too, starts
// here, so the tune times candidates in the regime its problem (and store key) names.
cuda::protocol::GemmRequest gemm_request(const gemm::GemmProblem& problem,
                                         const GemmEvaluatorOptions& options, int scale);

// What the GEMM families' evaluators (this one and gemm_fp8's) share.
// The CUDA backend's compiler for a GEMM family's kernel, with `options` completed in place: the
// CUTLASS headers (else $CUTUNE_CUTLASS_INCLUDE, else this build's) and the cache folder. Throws
// std::runtime_error when the headers are missing.
std::unique_ptr<cuda::CubinCompiler> gemm_family_compiler(GemmCompileOptions& options);
// A compile that failed, as its candidate's Measurement.
Measurement compile_failure_measurement(const cuda::CompileResult& result);
// A path setting: `given` when set, else $variable when set, else the build's `built_in`.
std::filesystem::path path_setting(const std::filesystem::path& given, const char* variable,
                                   const char* built_in);
// The text nvcc compiles for a family kernel: the `headers` of the folder above the kernel's ahead
// of it (the kernel skips each include once defined), so that a worker compiling the text in a
// scratch folder finds them and the text's version covers them.
std::string kernel_text(const std::filesystem::path& source,
                        const std::vector<std::string>& headers);
// The version of a kernel text, as the store keys it.
std::string kernel_text_version(const std::string& text);
// How a request of a problem timed `regime` is timed under `options`: the timing budget and most
// repetitions times `scale`, L2 flushed before each launch unless back to back.
cuda::protocol::Timing gemm_timing(const GemmEvaluatorOptions& options, int scale,
                                   gemm::Timing regime);
// One device worker per device of `options`, all the same sm_90 GPU, and what they report.
// Throws std::runtime_error when none starts or (naming `family`) the device is not sm_90.
struct GemmWorkers {
  std::unique_ptr<cuda::DeviceWorkerPool> pool;
  cuda::protocol::DeviceReport report;
  Device device() const;  // what constraints and seeds see
  std::string device_name() const;
};
GemmWorkers start_gemm_workers(const GemmEvaluatorOptions& options, const std::string& family);

class GemmEvaluator : public Evaluator {
 public:
  // Starts the device workers. Throws std::invalid_argument for a problem the family cannot run,
  // std::runtime_error when no worker starts or the device is not sm_90.
  GemmEvaluator(const Problem& problem, GemmEvaluatorOptions options = {});
  ~GemmEvaluator() override;

  std::vector<Measurement> evaluate(std::span<const Config> batch) override;
  std::vector<Measurement> retime(std::span<const Config> batch) override;
  // One request to the first worker (gemm_worker_mode.cpp): every config and cuBLASLt (each
  // round's reference_ms) in paired rounds after a warm-up that waits for cuBLASLt's time and the
  // SM clock to settle; each round's SM clock and power from NVML (NaN without it).
  PairedRounds time_rounds(std::span<const Config> configs, int rounds) override;
  // cuBLASLt (its first heuristic algorithm) on the same problem, data and timing: the reference
  // to compare with, timed in the same worker. `scale` multiplies the timing budget.
  Measurement time_cublas(int scale = 5);

  std::string device_name() const override;
  std::string toolchain() const override;
  // What constraints and seeds see: the worker's device (name, compute capability, opt-in shared
  // memory per block, SM count).
  Device device() const;
  GemmCompiler& compiler();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
