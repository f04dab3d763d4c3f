// What the runtime costs per CUDA launch: the host time to enqueue the row_sum example
// (examples/cuda/reduction.json, 64 x 64, so the GPU is never the bottleneck) with a raw
// cuLaunchKernelEx, against the same launch through Runtime::get (a prepared query, and by family
// name and problem). Launches go in batches of 256 between stream synchronizations, so that a
// full launch queue never blocks the host; each figure is the median over rounds of ns per launch.
// Prints a Markdown table (docs/perf.md).
#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <vector>

#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"

namespace {

void check(CUresult code, const char* what) {
  if (code != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(code, &name);
    throw std::runtime_error(fmt::format("{}: {}", what, name != nullptr ? name : "?"));
  }
}

constexpr int kBatch = 256;
constexpr int kRounds = 41;
constexpr int kBatchesPerRound = 40;

// Median over rounds of the host nanoseconds per launch, synchronizing after every batch (the
// synchronization is outside the timed part).
double ns_per_launch(CUstream stream, const std::function<void()>& launch) {
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) {
    double ns = 0;
    for (int b = 0; b < kBatchesPerRound; ++b) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < kBatch; ++i) launch();
      ns += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
                .count();
      check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    }
    rounds.push_back(ns / (kBatch * kBatchesPerRound));
  }
  std::nth_element(rounds.begin(), rounds.begin() + kRounds / 2, rounds.end());
  return rounds[kRounds / 2];
}

}  // namespace

int main() try {
  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

  const auto spec =
      cutune::load_spec(std::filesystem::path(CUTUNE_EXAMPLES_DIR) / "cuda/reduction.json");
  cutune::RuntimeOptions options;
  options.on_warning = [](const std::string& w) { fmt::print(stderr, "warning: {}\n", w); };
  cutune::Runtime runtime(options);
  runtime.add_family(cutune::cuda_spec_family(spec));
  const cutune::Problem problem = cutune::Problem::parse("rows=64,cols=64");
  const auto query = runtime.query("row_sum", problem);
  const auto& kernel = runtime.get(query).as<cutune::CudaKernel>();

  const std::size_t rows = 64, cols = 64;
  std::vector<float> host(rows * cols);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 7);
  CUdeviceptr in, out;
  check(cuMemAlloc(&in, host.size() * sizeof(float)), "cuMemAlloc");
  check(cuMemAlloc(&out, rows * sizeof(float)), "cuMemAlloc");
  check(cuMemcpyHtoD(in, host.data(), host.size() * sizeof(float)), "cuMemcpyHtoD");
  long long r = rows, c = cols;
  void* params[] = {&in, &out, &r, &c};

  // The launch is correct before it is timed.
  check(static_cast<CUresult>(kernel.launch(stream, params)), "launch");
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<float> sums(rows);
  check(cuMemcpyDtoH(sums.data(), out, rows * sizeof(float)), "cuMemcpyDtoH");
  for (std::size_t row = 0; row < rows; ++row) {
    double expected = 0;
    for (std::size_t col = 0; col < cols; ++col) expected += host[row * cols + col];
    if (std::abs(sums[row] - expected) > 1e-3 * std::max(1.0, expected)) {
      throw std::runtime_error(fmt::format("row {}: {} instead of {}", row, sums[row], expected));
    }
  }

  CUlaunchConfig raw{};
  raw.gridDimX = kernel.shape().grid[0];
  raw.gridDimY = kernel.shape().grid[1];
  raw.gridDimZ = kernel.shape().grid[2];
  raw.blockDimX = kernel.shape().block[0];
  raw.blockDimY = kernel.shape().block[1];
  raw.blockDimZ = kernel.shape().block[2];
  raw.sharedMemBytes = kernel.shape().shared_bytes;
  raw.hStream = stream;
  CUfunction function = kernel.function();

  double raw_ns = 0, query_ns = 0, name_ns = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms up
    raw_ns = ns_per_launch(stream, [&] { cuLaunchKernelEx(&raw, function, params, nullptr); });
    query_ns = ns_per_launch(
        stream, [&] { runtime.get(query).as<cutune::CudaKernel>().launch(stream, params); });
    name_ns = ns_per_launch(stream, [&] {
      runtime.get("row_sum", problem).as<cutune::CudaKernel>().launch(stream, params);
    });
  }
  fmt::print("| launch path | host ns per launch | over raw |\n|---|---|---|\n");
  fmt::print("| raw cuLaunchKernelEx | {:.0f} | - |\n", raw_ns);
  fmt::print("| Runtime::get(query) + launch | {:.0f} | {:+.0f} ns |\n", query_ns,
             query_ns - raw_ns);
  fmt::print("| Runtime::get(name, problem) + launch | {:.0f} | {:+.0f} ns |\n", name_ns,
             name_ns - raw_ns);
  fmt::print("config {} ({}), grid {} x block {}\n", kernel.config().to_string(),
             cutune::to_string(kernel.origin()), kernel.shape().grid[0], kernel.shape().block[0]);
  cuMemFree(in);
  cuMemFree(out);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "bench_runtime_cuda: {}\n", e.what());
  return 1;
}
