// Benchmarks compiled configurations of the Hopper GEMM family against cuBLASLt in the same
// process: each configuration is first checked against cuBLAS on fresh random inputs with a
// poisoned output, then timed with CUDA events around single launches, L2 flushed before each (the
// worker's timing, backend/cuda/launch_timer.hpp).
// Per shape, the fastest few and the default are then re-timed in rounds alternating with cuBLAS.
//
//   gemm_bench defines CONFIGS DTYPE LAYOUT
//       prints "NAME -DCUTUNE_...=..." per configuration, for compiling the cubins
//   gemm_bench run --cubins DIR --configs FILE --shapes MxNxK[,...] [--dtype bf16|fp16]
//       [--layout 0|1] [--reps N] [--exclude NAME[,...]] [--csv FILE] [--ab LABEL] [--rounds N]
//
// A candidate is a configuration name (gemm_problem.hpp's to_string), optionally followed by
// "@LABEL" naming the kernel build it came from (DIR/NAME@LABEL.cubin), so that builds of one
// configuration from different kernel sources can be compared. --ab LABEL re-times every
// candidate that passed (not just the best few) and ends with an A/B table per shape: config,
// label, TFLOP/s, ratio to cuBLAS and to the same configuration built as LABEL.
//
// CONFIGS holds one candidate per line; '#' comments.
// Before each launch it prints "begin SHAPE CONFIG", so a wrapper can tell which configuration
// faulted or hung (a launch still running after kLaunchDeadline exits the process with code 3).

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gemm/gemm_cublas.hpp"
#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_problem.hpp"
#include "launch_timer.hpp"

namespace {

using cutune::gemm::BLayout;
using cutune::gemm::DType;
using cutune::gemm::GemmConfig;
using cutune::gemm::GemmProblem;

constexpr int kCublasAlgorithms = 8;
constexpr int kWarmups = 3;
// The sweep's best few (and the default) are timed again, in rounds alternating with cuBLAS, so
// that drift over a long sweep (clocks, power) biases no one; each figure is a median of rounds.
constexpr int kRetimed = 3;
constexpr int kRetimeRounds = 5;
constexpr auto kLaunchDeadline = std::chrono::seconds(10);

void check_runtime(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(result));
  }
}

// Waits for `stream`, giving up on the whole process when a kernel runs far past any sane time:
// a hung kernel cannot be stopped from the host, and the wrapper script reruns without it.
void synchronize(cudaStream_t stream, const std::string& context) {
  const auto deadline = std::chrono::steady_clock::now() + kLaunchDeadline;
  while (true) {
    const cudaError_t state = cudaStreamQuery(stream);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) {
      std::printf("fault %s: %s\n", context.c_str(), cudaGetErrorString(state));
      std::fflush(stdout);
      std::_Exit(2);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::printf("hang %s\n", context.c_str());
      std::fflush(stdout);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

__device__ float uniform_from_hash(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + index;
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return static_cast<float>(x >> 40) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
}

template <typename T>
__global__ void fill_random(T* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = T(uniform_from_hash(seed, i));
  }
}

// sums[0] += (out - ref)^2, sums[1] += ref^2, sums[2] += non-finite outputs.
template <typename T>
__global__ void compare(const T* out, const T* ref, std::size_t count, double* sums) {
  double error = 0;
  double norm = 0;
  double bad = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double o = static_cast<float>(out[i]);
    const double r = static_cast<float>(ref[i]);
    if (!isfinite(o)) bad += 1;
    error += (o - r) * (o - r);
    norm += r * r;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    error += __shfl_down_sync(0xffffffffu, error, offset);
    norm += __shfl_down_sync(0xffffffffu, norm, offset);
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], error);
    atomicAdd(&sums[1], norm);
    atomicAdd(&sums[2], bad);
  }
}

struct Shape {
  std::int64_t m, n, k;
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  double flops() const { return 2.0 * m * n * k; }
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> shapes;
  for (const auto& part : split(text, ',')) {
    Shape shape{};
    char x1 = 0;
    char x2 = 0;
    std::stringstream stream(part);
    if (!(stream >> shape.m >> x1 >> shape.n >> x2 >> shape.k) || x1 != 'x' || x2 != 'x') {
      throw std::invalid_argument("shape '" + part + "' is not MxNxK");
    }
    shapes.push_back(shape);
  }
  return shapes;
}

std::vector<std::string> read_config_names(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read config list " + path);
  std::vector<std::string> names;
  std::string line;
  while (std::getline(file, line)) {
    line = line.substr(0, line.find('#'));
    line.erase(std::remove_if(line.begin(), line.end(), ::isspace), line.end());
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

DType parse_dtype(const std::string& text) {
  if (text == "bf16") return DType::bf16;
  if (text == "fp16") return DType::fp16;
  throw std::invalid_argument("dtype '" + text + "' is neither bf16 nor fp16");
}

BLayout parse_layout(const std::string& text) {
  if (text == "0") return BLayout::k_by_n;
  if (text == "1") return BLayout::n_by_k;
  throw std::invalid_argument("layout '" + text + "' is neither 0 (B is KxN) nor 1 (B is NxK)");
}

template <typename T>
T* device_alloc(std::size_t count) {
  void* pointer = nullptr;
  check_runtime(cudaMalloc(&pointer, count * sizeof(T)), "cudaMalloc");
  return static_cast<T*>(pointer);
}

// Times `launch` by the worker's one timing (backend/cuda/launch_timer.hpp: the L2 flushed before
// each launch, events around the launch) after kWarmups untimed launches; the median. The stream
// is waited on here, so that a fault or hang is reported with the candidate it belongs to.
class Timer {
 public:
  explicit Timer(cudaStream_t stream) : stream_(stream), timer_(stream) {}

  double median_ms(const std::function<void()>& launch, int reps, const std::string& context) {
    for (int i = 0; i < kWarmups; ++i) launch();
    synchronize(stream_, context);
    timer_.enqueue(launch, reps, /*flush=*/true);
    synchronize(stream_, context);
    std::vector<double> times = timer_.elapsed(reps);
    std::sort(times.begin(), times.end());
    last_spread_ = (times.back() - times.front()) / times[reps / 2];
    return times[reps / 2];
  }

  double last_spread() const { return last_spread_; }

 private:
  cudaStream_t stream_;
  cutune::cuda::worker::LaunchTimer timer_;
  double last_spread_ = 0;
};

CUdeviceptr address(const void* pointer) { return reinterpret_cast<CUdeviceptr>(pointer); }

struct Candidate {
  std::string name;
  GemmConfig config;
  CUmodule module = nullptr;
  cutune::gemm::GemmKernel kernel;
};

struct Timed {
  const Candidate* candidate;
  double tflops;
};

struct AbEntry {
  std::string shape;
  std::string base;
  std::string label;
  double tflops;
  double cublas_tflops;
};

struct Row {
  std::string shape;
  double cublas_tflops = 0;
  double cublas_best_tflops = 0;
  std::string best_config = "-";
  double best_tflops = 0;
  double default_tflops = 0;
  int ok = 0;
  int wrong = 0;
  int skipped = 0;
};

int run_benchmark(int argc, char** argv) {
  std::string cubin_dir;
  std::string config_path;
  std::string shapes_text;
  std::string csv_path;
  std::vector<std::string> excluded;
  DType dtype = DType::bf16;
  BLayout layout = BLayout::k_by_n;
  int reps = 30;
  bool ab = false;
  std::string yardstick;  // --ab's label
  int retime_rounds = kRetimeRounds;
  std::vector<AbEntry> ab_entries;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("flag " + flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--cubins") {
      cubin_dir = value;
    } else if (flag == "--configs") {
      config_path = value;
    } else if (flag == "--shapes") {
      shapes_text = value;
    } else if (flag == "--dtype") {
      dtype = parse_dtype(value);
    } else if (flag == "--layout") {
      layout = parse_layout(value);
    } else if (flag == "--reps") {
      reps = std::stoi(value);
    } else if (flag == "--exclude") {
      excluded = split(value, ',');
    } else if (flag == "--csv") {
      csv_path = value;
    } else if (flag == "--ab") {
      ab = true;
      yardstick = value;
    } else if (flag == "--rounds") {
      retime_rounds = std::max(1, std::stoi(value));
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  if (cubin_dir.empty() || config_path.empty() || shapes_text.empty()) {
    throw std::invalid_argument("run needs --cubins, --configs and --shapes");
  }
  const std::vector<Shape> shapes = parse_shapes(shapes_text);
  const double tolerance = dtype == DType::bf16 ? 1e-2 : 2e-3;
  const std::string default_name = cutune::gemm::to_string(GemmConfig{});

  check_runtime(cudaSetDevice(0), "cudaSetDevice");
  check_runtime(cudaFree(nullptr), "context creation");
  CUdevice device = 0;
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS) throw std::runtime_error("no current context");
  cudaDeviceProp properties{};
  check_runtime(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  std::printf("device %s, %d SMs, L2 %d MB, cc %d.%d\n", properties.name,
              properties.multiProcessorCount, properties.l2CacheSize >> 20, properties.major,
              properties.minor);

  std::vector<Candidate> candidates;
  for (const auto& name : read_config_names(config_path)) {
    if (std::find(excluded.begin(), excluded.end(), name) != excluded.end()) continue;
    Candidate candidate;
    candidate.name = name;
    candidate.config = cutune::gemm::parse_config(name.substr(0, name.find('@')));
    const std::string path = cubin_dir + "/" + name + ".cubin";
    if (cuModuleLoad(&candidate.module, path.c_str()) != CUDA_SUCCESS) {
      std::printf("skip %s: cannot load %s\n", name.c_str(), path.c_str());
      continue;
    }
    candidate.kernel = cutune::gemm::GemmKernel::load(candidate.module);
    candidates.push_back(candidate);
  }

  cudaStream_t stream = nullptr;
  check_runtime(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  Timer timer(stream);
  double* sums = device_alloc<double>(3);
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv != nullptr) std::fprintf(csv, "shape,config,status,rel_error,ms,tflops,spread\n");
  std::vector<Row> rows;
  std::uint64_t seed = 1;

  for (const Shape& shape : shapes) {
    Row row;
    row.shape = shape.name();
    const GemmProblem problem{shape.m, shape.n, shape.k, dtype, layout};
    const std::size_t a_count = shape.m * shape.k;
    const std::size_t b_count = shape.k * shape.n;
    const std::size_t d_count = shape.m * shape.n;
    std::uint16_t* a = device_alloc<std::uint16_t>(a_count);
    std::uint16_t* b = device_alloc<std::uint16_t>(b_count);
    std::uint16_t* d = device_alloc<std::uint16_t>(d_count);
    std::uint16_t* reference = device_alloc<std::uint16_t>(d_count);
    std::size_t workspace_floats = 1;
    for (const Candidate& candidate : candidates) {
      workspace_floats =
          std::max(workspace_floats, cutune::gemm::workspace_bytes(candidate.config, problem) / 4);
    }
    float* workspace = device_alloc<float>(workspace_floats);
    // The worker's reference, with its next few algorithms timed too.
    const cutune::gemm::CublasGemm cublas(problem, kCublasAlgorithms);

    auto fill = [&](std::uint64_t fill_seed) {
      if (dtype == DType::bf16) {
        fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(a), a_count,
                                              fill_seed);
        fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(b), b_count,
                                              fill_seed + 1);
      } else {
        fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<__half*>(a), a_count, fill_seed);
        fill_random<<<1024, 256, 0, stream>>>(reinterpret_cast<__half*>(b), b_count, fill_seed + 1);
      }
      check_runtime(cudaGetLastError(), "fill_random");
    };
    fill(seed += 2);
    for (int algorithm = 0; algorithm < cublas.algorithms(); ++algorithm) {
      const double ms = timer.median_ms(
          [&] { cublas.run(address(a), address(b), address(d), stream, algorithm); }, reps,
          row.shape + " cublas");
      const double tflops = shape.flops() / ms * 1e-9;
      if (algorithm == 0) row.cublas_tflops = tflops;
      row.cublas_best_tflops = std::max(row.cublas_best_tflops, tflops);
      std::printf("%s cublas_algo%d %.4f ms %.1f TFLOP/s spread %.3f\n", row.shape.c_str(),
                  algorithm, ms, tflops, timer.last_spread());
      if (csv != nullptr) {
        std::fprintf(csv, "%s,cublas_algo%d,ok,0,%.5f,%.2f,%.4f\n", row.shape.c_str(), algorithm,
                     ms, tflops, timer.last_spread());
      }
    }

    std::vector<Timed> passed;
    for (const Candidate& candidate : candidates) {
      const std::string context = row.shape + " " + candidate.name;
      if (!cutune::gemm::fits(candidate.config, problem)) {
        ++row.skipped;
        continue;
      }
      // Fresh inputs for every check: the kernel must compute the same function on any input.
      fill(seed += 2);
      cublas.run(address(a), address(b), address(reference), stream);
      check_runtime(cudaMemsetAsync(d, 0xFF, d_count * 2, stream), "poison");  // NaN in both
      check_runtime(cudaMemsetAsync(sums, 0, 3 * sizeof(double), stream), "clear sums");
      const cutune::gemm::GemmOperands operands{
          reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
          reinterpret_cast<CUdeviceptr>(d), reinterpret_cast<CUdeviceptr>(workspace)};
      std::printf("begin %s\n", context.c_str());
      std::fflush(stdout);
      try {
        const cutune::gemm::GemmLaunch launch(candidate.kernel, problem, candidate.config, operands,
                                              device);
        launch.launch(stream);
        if (dtype == DType::bf16) {
          compare<<<1024, 256, 0, stream>>>(reinterpret_cast<const __nv_bfloat16*>(d),
                                            reinterpret_cast<const __nv_bfloat16*>(reference),
                                            d_count, sums);
        } else {
          compare<<<1024, 256, 0, stream>>>(reinterpret_cast<const __half*>(d),
                                            reinterpret_cast<const __half*>(reference), d_count,
                                            sums);
        }
        synchronize(stream, context);
        double host_sums[3];
        check_runtime(cudaMemcpy(host_sums, sums, sizeof(host_sums), cudaMemcpyDeviceToHost),
                      "read sums");
        const double error = std::sqrt(host_sums[0] / host_sums[1]);
        if (!(error <= tolerance) || host_sums[2] > 0) {
          ++row.wrong;
          std::printf("wrong %s rel_error %.3e non_finite %.0f\n", context.c_str(), error,
                      host_sums[2]);
          if (csv != nullptr) {
            std::fprintf(csv, "%s,%s,wrong,%.3e,,,\n", row.shape.c_str(), candidate.name.c_str(),
                         error);
          }
          continue;
        }
        const double ms = timer.median_ms([&] { launch.launch(stream); }, reps, context);
        const double tflops = shape.flops() / ms * 1e-9;
        ++row.ok;
        std::printf(
            "ok %s rel_error %.2e grid %d %.4f ms %.1f TFLOP/s (%.3fx cublas) spread %.3f\n",
            context.c_str(), error, launch.grid_blocks(), ms, tflops, tflops / row.cublas_tflops,
            timer.last_spread());
        if (csv != nullptr) {
          std::fprintf(csv, "%s,%s,ok,%.3e,%.5f,%.2f,%.4f\n", row.shape.c_str(),
                       candidate.name.c_str(), error, ms, tflops, timer.last_spread());
        }
        passed.push_back({&candidate, tflops});
      } catch (const std::exception& error) {
        ++row.wrong;
        std::printf("error %s: %s\n", context.c_str(), error.what());
        if (csv != nullptr) {
          std::fprintf(csv, "%s,%s,error,,,,\n", row.shape.c_str(), candidate.name.c_str());
        }
      }
      std::fflush(stdout);
    }

    // Re-time: the kRetimed fastest of the sweep and the default, alternating with cuBLAS.
    std::sort(passed.begin(), passed.end(),
              [](const Timed& x, const Timed& y) { return x.tflops > y.tflops; });
    std::vector<const Candidate*> finalists;
    for (const Timed& timed : passed) {
      if (ab || static_cast<int>(finalists.size()) < kRetimed ||
          timed.candidate->name == default_name) {
        finalists.push_back(timed.candidate);
      }
    }
    const cutune::gemm::GemmOperands operands{
        reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
        reinterpret_cast<CUdeviceptr>(d), reinterpret_cast<CUdeviceptr>(workspace)};
    std::vector<std::vector<double>> rounds(finalists.size() + 1);  // [0] is cuBLAS
    for (int round = 0; round < retime_rounds; ++round) {
      rounds[0].push_back(
          timer.median_ms([&] { cublas.run(address(a), address(b), address(d), stream); }, reps,
                          row.shape + " cublas"));
      for (std::size_t i = 0; i < finalists.size(); ++i) {
        const std::string context = row.shape + " " + finalists[i]->name;
        std::printf("begin %s\n", context.c_str());
        std::fflush(stdout);
        const cutune::gemm::GemmLaunch launch(finalists[i]->kernel, problem, finalists[i]->config,
                                              operands, device);
        rounds[i + 1].push_back(timer.median_ms([&] { launch.launch(stream); }, reps, context));
      }
    }
    auto median_tflops = [&](std::vector<double> times) {
      std::sort(times.begin(), times.end());
      return shape.flops() / times[times.size() / 2] * 1e-9;
    };
    row.cublas_tflops = median_tflops(rounds[0]);
    for (std::size_t i = 0; i < finalists.size(); ++i) {
      const double tflops = median_tflops(rounds[i + 1]);
      std::printf("retimed %s %s %.1f TFLOP/s (%.3fx cublas %.1f)\n", row.shape.c_str(),
                  finalists[i]->name.c_str(), tflops, tflops / row.cublas_tflops,
                  row.cublas_tflops);
      if (csv != nullptr) {
        std::fprintf(csv, "%s,%s,retimed,,,%.2f,\n", row.shape.c_str(), finalists[i]->name.c_str(),
                     tflops);
      }
      if (tflops > row.best_tflops) {
        row.best_tflops = tflops;
        row.best_config = finalists[i]->name;
      }
      if (finalists[i]->name == default_name) row.default_tflops = tflops;
      const std::string& name = finalists[i]->name;
      const std::size_t at = name.find('@');
      ab_entries.push_back({row.shape, name.substr(0, at),
                            at == std::string::npos ? "-" : name.substr(at + 1), tflops,
                            row.cublas_tflops});
    }
    if (csv != nullptr) {
      std::fprintf(csv, "%s,cublas,retimed,,,%.2f,\n", row.shape.c_str(), row.cublas_tflops);
    }
    rows.push_back(row);
    for (void* pointer : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(d),
                          static_cast<void*>(reference), static_cast<void*>(workspace)}) {
      cudaFree(pointer);
    }
  }
  if (csv != nullptr) std::fclose(csv);

  std::printf("\n%-18s %8s %8s  %-34s %8s %7s %7s %s\n", "shape", "cublas", "cublas*",
              "best config", "ours", "ratio", "default", "ok/wrong/skip");
  double log_sum = 0;
  for (const Row& row : rows) {
    const double ratio = row.best_tflops / row.cublas_tflops;
    log_sum += std::log(std::max(ratio, 1e-9));
    std::printf("%-18s %8.1f %8.1f  %-34s %8.1f %7.3f %7.3f %d/%d/%d\n", row.shape.c_str(),
                row.cublas_tflops, row.cublas_best_tflops, row.best_config.c_str(), row.best_tflops,
                ratio, row.default_tflops / row.cublas_tflops, row.ok, row.wrong, row.skipped);
  }
  std::printf("geomean ratio (best / cublas heuristic #1): %.3f\n",
              std::exp(log_sum / static_cast<double>(rows.size())));
  std::printf(
      "(TFLOP/s; cublas = cuBLASLt heuristic #1 and ours = the best of the sweep, both "
      "re-timed: median of %d alternating rounds; cublas* = best of cuBLASLt's top %d in "
      "the sweep; ratio = ours / cublas; default = %s / cublas)\n",
      retime_rounds, kCublasAlgorithms, default_name.c_str());
  if (ab) {
    std::printf(
        "\nA/B (re-timed, median of %d rounds alternating with cuBLAS; vs_%s = this / the "
        "same config built as %s)\n",
        retime_rounds, yardstick.c_str(), yardstick.c_str());
    std::printf("%-18s %-34s %-12s %8s %8s %7s %7s\n", "shape", "config", "label", "TFLOP/s",
                "cublas", "ratio", "vs");
    // Each (shape, config)'s TFLOP/s as the yardstick build, against which its other builds read.
    std::map<std::pair<std::string, std::string>, double> yardstick_tflops;
    for (const AbEntry& entry : ab_entries) {
      if (entry.label == yardstick) yardstick_tflops[{entry.shape, entry.base}] = entry.tflops;
    }
    // Per label: the log-ratios to the yardstick of the pairs that have one.
    std::map<std::string, std::vector<double>> log_ratios;
    for (const AbEntry& entry : ab_entries) {
      const auto base = yardstick_tflops.find({entry.shape, entry.base});
      const double base_tflops = base != yardstick_tflops.end() ? base->second : 0;
      if (entry.label != yardstick && base_tflops > 0) {
        log_ratios[entry.label].push_back(std::log(entry.tflops / base_tflops));
      }
      char vs[16] = "-";
      if (base_tflops > 0) std::snprintf(vs, sizeof(vs), "%.3f", entry.tflops / base_tflops);
      std::printf("%-18s %-34s %-12s %8.1f %8.1f %7.3f %7s\n", entry.shape.c_str(),
                  entry.base.c_str(), entry.label.c_str(), entry.tflops, entry.cublas_tflops,
                  entry.tflops / entry.cublas_tflops, vs);
    }
    for (const auto& [label, logs] : log_ratios) {
      double log_sum = 0;
      for (double log_ratio : logs) log_sum += log_ratio;
      std::printf("%s: geomean vs %s %.3f over %zu (shape, config) pairs\n", label.c_str(),
                  yardstick.c_str(), std::exp(log_sum / static_cast<double>(logs.size())),
                  logs.size());
    }
  }
  return 0;
}

int print_defines(int argc, char** argv) {
  if (argc != 5) throw std::invalid_argument("usage: gemm_bench defines CONFIGS DTYPE LAYOUT");
  const DType dtype = parse_dtype(argv[3]);
  const BLayout layout = parse_layout(argv[4]);
  for (const auto& name : read_config_names(argv[2])) {
    std::printf("%s", name.c_str());
    for (const auto& define : cutune::gemm::compile_defines(
             cutune::gemm::parse_config(name.substr(0, name.find('@'))), dtype, layout)) {
      std::printf(" -D%s", define.c_str());
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "defines") return print_defines(argc, argv);
    if (mode == "run") return run_benchmark(argc, argv);
    std::fprintf(stderr, "usage: gemm_bench defines|run ... (see the head of gemm_bench.cu)\n");
    return 64;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gemm_bench: %s\n", error.what());
    std::fflush(stdout);
    return 1;
  }
}
