// The state behind CudaEvaluator (cutune/cuda.hpp) and its parts, one file each:
// cuda_evaluator.cpp (the compiler, the device workers and the public API), cuda_arguments.cpp
// (the kernel's arguments, constants and the check's reference kernel, as every measure request
// carries them), cuda_launch.cpp (a config as a compile request and a launch) and
// cuda_measure.cpp (a batch measured, paired rounds timed). Internal to cutune_cuda.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cutune/cuda.hpp"
#include "cutune/cuda/device_worker_pool.hpp"

namespace cutune {

struct CudaEvaluator::Impl {
  const KernelSpec& spec;
  Problem problem;
  CudaOptions options;
  Device device;
  cuda::protocol::DeviceReport report;
  cuda::CompilerKind compiler_kind = cuda::CompilerKind::nvcc;
  std::unique_ptr<cuda::CubinCompiler> compiler;
  std::unique_ptr<cuda::DeviceWorkerPool> workers;
  std::string source_text;
  std::optional<cuda::protocol::Launch> reference;
  std::vector<cuda::protocol::Arg> args;
  std::vector<cuda::protocol::Constant> constants;
  double tolerance = -1;
  std::atomic<std::uint64_t> next_id{1};  // slots build requests in parallel
  CudaEvaluationStats stats;

  Impl(const KernelSpec& s, Problem p, CudaOptions o)
      : spec(s), problem(std::move(p)), options(std::move(o)) {}

  // cuda_arguments.cpp
  void set_arguments();
  void set_reference();
  cuda::protocol::MeasureRequest measure_request(const cuda::protocol::Timing& timing);

  // cuda_launch.cpp
  cuda::CompileRequest compile_request(const std::filesystem::path& source, const Config& config,
                                       const std::string& entry);
  std::optional<cuda::protocol::Launch> launch_of(const Config& config, std::string& why,
                                                  const LaunchSpec* other = nullptr) const;
  cuda::protocol::Timing timing(int scale) const;
  Measurement failed_compile(const cuda::CompileResult& result) const;

  // cuda_measure.cpp
  PairedRounds rounds(std::span<const Config> configs, int count);
  std::vector<Measurement> run(std::span<const Config> batch, const cuda::protocol::Timing& timing);
};

}  // namespace cutune
