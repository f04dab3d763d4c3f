// What the runtime costs per CUDA launch: the host time to enqueue the row_sum example
// (examples/cuda/reduction.json, 64 x 64, so the GPU is never the bottleneck) with a raw
// cuLaunchKernelEx, against the same launch through Runtime::get (a prepared query, and by family
// name and problem). Launches go in batches of 256 between stream synchronizations, so that a
// full launch queue never blocks the host; each figure is the median over rounds of ns per launch.
// Prints a Markdown table (docs/perf.md).
//
// In a build with the GEMM runtime family (cutune/gemm.hpp), a second table does the same for the
// built-in Hopper GEMM (256 x 256 x 256 bf16; needs an sm_90 GPU), one table per config kind (the
// default config, ping-pong, a cooperative cluster with fast_launch, split-K, whose raw launch is
// two: the GEMM and the reduction): a raw cuLaunchKernelEx with tensor maps encoded here,
// GemmLaunch::launch (prepared), the runtime kernel's launch(stream, operands) (prepared-launch
// cache lookup), the same through Runtime::get, and a GemmLaunch built for every launch (what the
// cache saves).
//
//   bench_runtime_cuda [--no-spec] [--no-gemm] [--rounds N (default 41)]
#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "cutune/dispatch.hpp"
#include "cutune/gemm.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_problem.hpp"

namespace {

void check(CUresult code, const char* what) {
  if (code != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(code, &name);
    throw std::runtime_error(fmt::format("{}: {}", what, name != nullptr ? name : "?"));
  }
}

constexpr int kBatch = 256;
int rounds_per_figure = 41;  // --rounds: fewer for a quick table
constexpr int kBatchesPerRound = 40;

// Median over rounds of the host nanoseconds per launch, synchronizing after every batch (the
// synchronization is outside the timed part).
double ns_per_launch(CUstream stream, const std::function<void()>& launch) {
  std::vector<double> rounds;
  for (int r = 0; r < rounds_per_figure; ++r) {
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
  const auto middle = rounds.begin() + rounds_per_figure / 2;
  std::nth_element(rounds.begin(), middle, rounds.end());
  return *middle;
}

void bench_row_sum(CUstream stream) {
  // $CUTUNE_EXAMPLES_DIR: where a build carried to another machine finds the examples.
  const char* examples = std::getenv("CUTUNE_EXAMPLES_DIR");
  const auto spec = cutune::load_spec(std::filesystem::path(examples != nullptr && *examples != '\0'
                                                                ? examples
                                                                : CUTUNE_EXAMPLES_DIR) /
                                      "cuda/reduction.json");
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
}

// A tensor map as GemmLaunch encodes it (gemm_launch.cpp): a row-major rows x columns bf16 matrix
// read in boxes of box_rows x box_columns.
CUtensorMap raw_tensor_map(CUdeviceptr base, std::int64_t rows, std::int64_t columns, int box_rows,
                           int box_columns) {
  const std::array<cuuint64_t, 2> dims{static_cast<cuuint64_t>(columns),
                                       static_cast<cuuint64_t>(rows)};
  const std::array<cuuint64_t, 1> strides{static_cast<cuuint64_t>(columns) * 2};
  const std::array<cuuint32_t, 2> box{static_cast<cuuint32_t>(box_columns),
                                      static_cast<cuuint32_t>(box_rows)};
  const std::array<cuuint32_t, 2> element_strides{1, 1};
  CUtensorMap map{};
  check(cuTensorMapEncodeTiled(
            &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, reinterpret_cast<void*>(base), dims.data(),
            strides.data(), box.data(), element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
            box_columns * 2 == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  return map;
}

std::vector<std::uint16_t> download(CUdeviceptr d, std::size_t elements) {
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  std::vector<std::uint16_t> out(elements);
  check(cuMemcpyDtoH(out.data(), d, elements * 2), "cuMemcpyDtoH");
  return out;
}

// A rule that picks `config` for every problem: how the bench makes Runtime::get hand out each
// config kind (the runtime repairs it for the problem, as it would any dispatched config).
cutune::Dispatcher one_config_rule(const nlohmann::json& config) {
  return cutune::Dispatcher::from_json({{"format", "cutune-dispatch"},
                                        {"version", 1},
                                        {"family", "gemm"},
                                        {"family_version", "any"},
                                        {"device", "any"},
                                        {"features", {"k", "m", "n"}},
                                        {"fixed", {{"dtype", "bf16"}}},
                                        {"configs", {{{"hash", "bench"}, {"config", config}}}},
                                        {"rule", {{"kind", "tree"}, {"nodes", {{{"config", 0}}}}}}},
                                       "the launch bench's rule");
}

// The launch table of one GEMM config kind (`config` empty: the family's default config).
void bench_gemm(CUstream stream, const std::string& label, const nlohmann::json& config_json) {
  cutune::RuntimeOptions options;
  options.on_warning = [](const std::string& w) { fmt::print(stderr, "warning: {}\n", w); };
  cutune::Runtime runtime(options);
  runtime.add_family(cutune::gemm_family());
  if (!config_json.is_null()) runtime.add_dispatch(one_config_rule(config_json));
  const cutune::Problem problem = cutune::Problem::parse("m=256,n=256,k=256,dtype=bf16");
  const auto query = runtime.query("gemm", problem);
  const auto& kernel = runtime.get(query).as<cutune::GemmRuntimeKernel>();
  const cutune::gemm::GemmConfig& config = kernel.gemm_config();
  const std::int64_t m = 256, n = 256, k = 256;
  std::vector<std::uint16_t> host(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < host.size(); ++i) {
    const float f = static_cast<float>(static_cast<int>(i * 7 % 9) - 4) / 4.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    host[i] = static_cast<std::uint16_t>(bits >> 16);
  }
  CUdeviceptr a, b, d, d_raw, raw_workspace = 0;
  for (CUdeviceptr* p : {&a, &b, &d, &d_raw}) check(cuMemAlloc(p, host.size() * 2), "cuMemAlloc");
  if (kernel.workspace_bytes() > 0) {
    check(cuMemAlloc(&raw_workspace, kernel.workspace_bytes()), "cuMemAlloc(workspace)");
  }
  check(cuMemcpyHtoD(a, host.data(), host.size() * 2), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(b, host.data(), host.size() * 2), "cuMemcpyHtoD");
  // The runtime's kernel runs split-K on its own workspace (workspace = 0), the raw launch on
  // the one allocated here.
  const cutune::gemm::GemmOperands operands{.a = a, .b = b, .d = d, .workspace = 0};
  const auto prepared = kernel.prepare(operands);

  // The raw launch: GemmLaunch's arguments and launch configuration, built here.
  const int atom_k = std::min(config.tile_k, 64);
  CUtensorMap map_a = raw_tensor_map(a, m, k, config.tile_m / config.cluster_n, atom_k);
  CUtensorMap map_b = raw_tensor_map(b, k, n, config.tile_k / config.cluster_m, 64);
  CUdeviceptr raw_d = d_raw;
  int raw_m = static_cast<int>(m), raw_n = static_cast<int>(n), raw_k = static_cast<int>(k);
  // The TMA-store epilogue writes D through its tensor map, in 16 x 64 boxes (gemm_launch.cpp);
  // split-K writes its fp32 workspace from registers and has no such map.
  CUtensorMap map_d{};
  if (config.split_k == 1) {
    map_d = raw_tensor_map(d_raw, m, n, cutune::gemm::rules::kEpilogueBoxRows, 64);
  }
  void* raw_args[] = {&map_a, &map_b, &raw_d, &raw_workspace, &raw_m, &raw_n, &raw_k, &map_d};
  std::array<CUlaunchAttribute, 2> attributes{};
  unsigned attribute_count = 0;
  if (config.cluster_m * config.cluster_n > 1) {
    CUlaunchAttribute& cluster = attributes[attribute_count++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = static_cast<unsigned>(config.cluster_m * config.cluster_n);
    cluster.value.clusterDim.y = 1;
    cluster.value.clusterDim.z = 1;
  }
  if (config.fast_launch) {
    CUlaunchAttribute& programmatic = attributes[attribute_count++];
    programmatic.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    programmatic.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig raw{};
  raw.gridDimX = static_cast<unsigned>(prepared->grid_blocks());
  raw.gridDimY = raw.gridDimZ = 1;
  raw.blockDimX = cutune::gemm::kThreadsPerBlock;
  raw.blockDimY = raw.blockDimZ = 1;
  raw.sharedMemBytes = static_cast<unsigned>(prepared->shared_bytes());
  raw.hStream = stream;
  raw.attrs = attributes.data();
  raw.numAttrs = attribute_count;
  const CUfunction function = kernel.functions().gemm;
  // Split-K's second kernel, as GemmLaunch launches it: 256 threads, one per 4 outputs, at most
  // 4096 blocks.
  long long elements = m * n;
  void* reduce_args[] = {&raw_workspace, &raw_d, &elements};
  const unsigned reduce_blocks =
      static_cast<unsigned>(std::min<std::int64_t>((m * n / 4 + 255) / 256, 4096));
  auto raw_launch = [&] {
    CUresult result = cuLaunchKernelEx(&raw, function, raw_args, nullptr);
    if (config.split_k > 1 && result == CUDA_SUCCESS) {
      result = cuLaunchKernel(kernel.functions().splitk_reduce, reduce_blocks, 1, 1, 256, 1, 1, 0,
                              stream, reduce_args, nullptr);
    }
    return result;
  };

  // Both paths compute the same D, bit for bit (same kernel, same accumulation order); when they
  // do not, the raw arguments built here no longer match GemmLaunch's (the kernel changed), and
  // the raw row is left out rather than timing a wrong launch.
  kernel.launch(stream, operands);
  const auto via_runtime = download(d, host.size());
  const bool raw_ok = raw_launch() == CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS &&
                      download(d_raw, host.size()) == via_runtime;
  if (!raw_ok) {
    fmt::print(stderr,
               "bench_runtime_cuda: {}: the raw GEMM launch differs from GemmLaunch's; raw row "
               "left out, ratios are to GemmLaunch::launch\n",
               label);
  }
  double nonzero = 0;
  for (std::uint16_t v : via_runtime) nonzero += (v & 0x7fff) != 0;
  if (nonzero < 0.5 * static_cast<double>(via_runtime.size())) {
    throw std::runtime_error(label + ": the GEMM wrote mostly zeros");
  }

  double raw_ns = 0, prepared_ns = 0, kernel_ns = 0, query_ns = 0, name_ns = 0, fresh_ns = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms up
    prepared_ns = ns_per_launch(stream, [&] { prepared->launch(stream); });
    raw_ns = raw_ok ? ns_per_launch(stream, raw_launch) : prepared_ns;
    kernel_ns = ns_per_launch(stream, [&] { kernel.launch(stream, operands); });
    query_ns = ns_per_launch(stream, [&] {
      runtime.get(query).as<cutune::GemmRuntimeKernel>().launch(stream, operands);
    });
    name_ns = ns_per_launch(stream, [&] {
      runtime.get("gemm", problem).as<cutune::GemmRuntimeKernel>().launch(stream, operands);
    });
  }
  // A GemmLaunch per launch needs the workspace itself (the runtime kernel's is private).
  const cutune::gemm::GemmOperands fresh_operands{
      .a = a, .b = b, .d = d, .workspace = raw_workspace};
  fresh_ns = ns_per_launch(stream, [&] {
    cutune::gemm::GemmLaunch(kernel.functions(), kernel.problem(), config, fresh_operands, 0)
        .launch(stream);
  });
  const std::size_t prepared_before = kernel.prepared_count();
  auto row = [&](const char* path, double ns) {
    fmt::print("| {} | {:.0f} | {:.3f} | {:+.0f} ns |\n", path, ns, ns / raw_ns, ns - raw_ns);
  };
  fmt::print("\nGEMM {}, {} ({}, {}): {} blocks, {} bytes of shared memory{}\n",
             problem.canonical(), label, cutune::gemm::to_string(config),
             cutune::to_string(kernel.origin()), prepared->grid_blocks(), prepared->shared_bytes(),
             config.split_k > 1 ? ", two launches (GEMM + split-K reduction)" : "");
  fmt::print("| launch path | host ns per launch | ratio to raw | over raw |\n|---|---|---|---|\n");
  if (raw_ok) {
    fmt::print("| raw cuLaunchKernelEx (tensor maps encoded once) | {:.0f} | 1.000 | - |\n",
               raw_ns);
  }
  row("GemmLaunch::launch (prepared)", prepared_ns);
  row("GemmRuntimeKernel::launch(stream, operands)", kernel_ns);
  row("Runtime::get(query) + launch", query_ns);
  row("Runtime::get(name, problem) + launch", name_ns);
  row("new GemmLaunch per launch (no cache)", fresh_ns);
  fmt::print("prepared launches after the timed runs: {} (1: every repeat launch was cached)\n",
             prepared_before);
  for (CUdeviceptr p : {a, b, d, d_raw}) cuMemFree(p);
  if (raw_workspace != 0) cuMemFree(raw_workspace);
}

// Every config kind the kernel has: the family's default at 256^3, a plain ping-pong tile, a
// cooperative 2x1 cluster with programmatic launch (fast_launch), and split-K.
void bench_gemm_kinds(CUstream stream) {
  bench_gemm(stream, "default config", nullptr);
  bench_gemm(stream, "ping-pong, no cluster",
             {{"tile_m", 128}, {"tile_n", 128}, {"schedule", "pingpong"}, {"split_k", 1}});
  bench_gemm(stream, "cooperative 2x1 cluster, fast_launch",
             {{"tile_m", 128},
              {"tile_n", 256},
              {"tile_k", 64},
              {"stages", 4},
              {"cluster_m", 2},
              {"cluster_n", 1},
              {"schedule", "cooperative"},
              {"split_k", 1},
              {"fast_launch", true}});
  bench_gemm(stream, "split-K 2",
             {{"tile_m", 128}, {"tile_n", 128}, {"schedule", "pingpong"}, {"split_k", 2}});
}

}  // namespace

int main(int argc, char** argv) try {
  bool spec = true, gemm = true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--no-spec") {
      spec = false;
    } else if (arg == "--no-gemm") {
      gemm = false;
    } else if (arg == "--rounds" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      rounds_per_figure = std::atoi(argv[++i]);
    } else {
      fmt::print(stderr, "usage: bench_runtime_cuda [--no-spec] [--no-gemm] [--rounds N]\n");
      return 64;
    }
  }
  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  if (spec) bench_row_sum(stream);
  if (gemm) bench_gemm_kinds(stream);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "bench_runtime_cuda: {}\n", e.what());
  return 1;
}
