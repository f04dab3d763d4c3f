// The C++ columns of the GEMM peer table (scripts/gpu/gemm-peers.sh): configs of the Hopper GEMM
// family against cuBLASLt on one problem, in one process, timed by issue 11's method: a graph of
// one launch replayed between events, each replay after an L2 flush, medians of >= 30 after a
// clock ramp by the same method (graph_timer.hpp's per_launch_graph; --method stream: plain stream
// launches, the worker's method). The ramp runs the timed method itself: after back-to-back
// replays the card is in another state, in which a DRAM-bound shape (128x8192x8192) reads 12-18 %
// below what the worker and peers.py read.
//
//   gemm_peer_bench --problem m=2048,n=4096,k=4096,dtype=bf16[,b_layout=n_by_k]
//                   --config NAME=JSON [--config NAME=JSON ...] [--reps 30] [--rounds 5]
//                   [--seed 1] [--ramp-seconds 2] [--method graph|stream] [--compile-only 1]
//                   [--flush 1|0]
//
// --compile-only 1 compiles the configs into the compile cache and prints each one's cubin, with
// no GPU (so that a bundle can carry the cache to the GPU machine). --flush 0 times back to back,
// no L2 flush between launches (the `timing=back_to_back` regime of a tune); each line then says
// "timing": "back_to_back".
// JSON is a config as `cutune show --json` / `cutune export --json` and the tune report print it
// (an object of knobs). Each config is compiled through the runtime's compile path (GemmCubins:
// the tuner's compiler and cache, so the cubin a tune measured is the one timed here), launched
// through GemmLaunch, and checked against cuBLASLt as the device worker checks it: the worker's
// random non-zero inputs, D poisoned with NaN, the worker's comparison and tolerance. Then, after a
// clock ramp, `rounds` rounds each time every config that passed, `reps` launches each, right
// after `reps` launches of cuBLASLt, so that each ratio to cuBLAS is paired with the launches next
// to it (the figure to compare: absolute times move with the card's state). Prints one JSON line
// per column ("cublas" first, then "cublas_gemm_ex", torch.matmul's cublasGemmEx call); a config
// that fails is a line with its outcome and no time. Exit 1 on a usage error or a failure of
// cuBLASLt or the device; a config's failure is a line, not an exit.
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cuda/worker_host.hpp"
#include "cublas_gemm_ex.hpp"
#include "cutune/timing_summary.hpp"
#include "gemm/gemm_cubins.hpp"
#include "gemm/gemm_cublas.hpp"
#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_space.hpp"
#include "graph_timer.hpp"

namespace {

using namespace cutune;
using cuda::worker::check;
using cuda::worker::DeviceBuffer;
using nlohmann::json;

struct Args {
  std::string problem;
  std::vector<std::pair<std::string, std::string>> configs;  // name, JSON
  int reps = 30;
  int rounds = 5;
  std::uint64_t seed = 1;
  double ramp_seconds = 2;
  bench::GraphTimer::Method method = bench::GraphTimer::Method::per_launch_graph;
  bool compile_only = false;
  bool flush = true;
};

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--problem") {
      args.problem = value;
    } else if (flag == "--config") {
      const auto equals = value.find('=');
      if (equals == std::string::npos) throw std::invalid_argument("--config needs NAME=JSON");
      const std::string name = value.substr(0, equals);
      const bool taken = std::any_of(args.configs.begin(), args.configs.end(),
                                     [&](const auto& config) { return config.first == name; });
      if (taken || name == "cublas" || name == "cublas_gemm_ex") {
        throw std::invalid_argument("--config name '" + name + "' is taken");
      }
      args.configs.emplace_back(name, value.substr(equals + 1));
    } else if (flag == "--reps") {
      args.reps = std::stoi(value);
    } else if (flag == "--rounds") {
      args.rounds = std::stoi(value);
    } else if (flag == "--seed") {
      args.seed = std::stoull(value);
    } else if (flag == "--ramp-seconds") {
      args.ramp_seconds = std::stod(value);
    } else if (flag == "--method") {
      if (value != "graph" && value != "stream") {
        throw std::invalid_argument("--method is graph or stream, not '" + value + "'");
      }
      args.method = value == "graph" ? bench::GraphTimer::Method::per_launch_graph
                                     : bench::GraphTimer::Method::stream;
    } else if (flag == "--flush") {
      if (value != "0" && value != "1") throw std::invalid_argument("--flush is 1 or 0");
      args.flush = value == "1";
    } else if (flag == "--compile-only") {
      args.compile_only = value == "1";
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  if (argc % 2 == 0 || args.problem.empty()) {
    throw std::invalid_argument("usage: gemm_peer_bench --problem ARGS [--config NAME=JSON]...");
  }
  if (args.reps < 30 || args.rounds < 1) throw std::invalid_argument("--reps >= 30, --rounds >= 1");
  return args;
}

// A column of the table: cuBLAS, or one config with its launch and check.
struct Column {
  std::string name;
  json line;  // what is printed; "ms" and the ratio are added after timing
  std::unique_ptr<gemm::GemmLaunch> launch;
  std::unique_ptr<bench::CapturedLaunch> graph;
  std::vector<double> times;         // every replay of every round
  std::vector<double> round_ratios;  // cuBLAS's round median / this column's
};

int run(const Args& args) {
  const Problem problem = resolve_gemm_problem(Problem::parse(args.problem));
  const gemm::GemmProblem shape = to_gemm_problem(problem);
  const double flops = 2.0 * static_cast<double>(shape.m) * shape.n * shape.k;
  const auto dtype =
      shape.dtype == gemm::DType::bf16 ? cuda::protocol::Dtype::bf16 : cuda::protocol::Dtype::f16;
  const std::unique_ptr<TuningSpace> space = make_gemm_space();
  runtime::GemmCubins cubins{GemmCompileOptions{}};
  if (args.compile_only) {
    for (const auto& [name, text] : args.configs) {
      const Config config = space->space.from_json(json::parse(text));
      const json line = {{"column", name},
                         {"config", gemm::to_string(to_gemm_config(config))},
                         {"cubin", cubins.compile(config, problem).string()}};
      std::printf("%s\n", line.dump().c_str());
    }
    return 0;
  }

  const bench::DeviceStream opened = bench::open_device_stream();
  const CUdevice device = opened.device;
  const CUstream stream = opened.stream;

  cuda::worker::Random rng(args.seed);
  const auto upload = [&](std::int64_t rows, std::int64_t columns) {
    const auto values = cuda::worker::random_values(dtype, rows * columns, rng);
    DeviceBuffer buffer(values.size());
    check(cuMemcpyHtoD(buffer.pointer, values.data(), values.size()), "cuMemcpyHtoD");
    return buffer;
  };
  const DeviceBuffer a = upload(shape.m, shape.k), b = upload(shape.k, shape.n);
  const DeviceBuffer d(static_cast<std::size_t>(shape.m * shape.n) *
                       cuda::protocol::dtype_size(dtype));
  const auto read_d = [&] {
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<std::byte> host(d.bytes);
    check(cuMemcpyDtoH(host.data(), d.pointer, host.size()), "cuMemcpyDtoH");
    return host;
  };
  const gemm::CublasGemm cublas(shape);
  const auto run_cublas = [&] { cublas.run(a.pointer, b.pointer, d.pointer, stream); };
  check(cuMemsetD8Async(d.pointer, 0xff, d.bytes, stream), "cuMemsetD8Async");
  run_cublas();
  const std::vector<std::byte> expected = read_d();

  std::vector<Column> columns(1);
  columns[0].name = "cublas";
  columns[0].line = {{"algorithm", "cuBLASLt heuristic #1, 64 MiB workspace"}};
  columns[0].graph = std::make_unique<bench::CapturedLaunch>(stream, run_cublas);
  std::map<std::string, DeviceBuffer> workspaces;
  std::vector<json> failed;
  // A result checked as the worker checks a candidate: ok, or why not in `line`.
  const auto checked = [&](json& line) {
    const auto result = cuda::worker::compare(read_d(), expected, dtype,
                                              static_cast<std::uint64_t>(shape.m * shape.n));
    line["max_rel_error"] = result.max_rel_error;
    if (result.problem.empty() &&
        result.max_rel_error <= cuda::protocol::default_tolerance(dtype)) {
      return true;
    }
    line["outcome"] = "wrong_result";
    line["detail"] = result.problem;
    failed.push_back(line);
    return false;
  };

  // torch.matmul's call (cublasGemmEx), so that this process shows whether torch's cuBLAS and
  // cuBLASLt's heuristic #1 differ by algorithm rather than by harness.
  const bench::CublasGemmEx gemm_ex(shape);
  const auto run_gemm_ex = [&] { gemm_ex.run(a.pointer, b.pointer, d.pointer, stream); };
  json gemm_ex_line = {
      {"column", "cublas_gemm_ex"},
      {"outcome", "ok"},
      {"algorithm", "cublasGemmEx, CUBLAS_GEMM_DEFAULT_TENSOR_OP, 32 MiB workspace"}};
  check(cuMemsetD8Async(d.pointer, 0xff, d.bytes, stream), "cuMemsetD8Async");
  run_gemm_ex();
  if (checked(gemm_ex_line)) {
    Column column{"cublas_gemm_ex", gemm_ex_line, nullptr, nullptr, {}, {}};
    column.graph = std::make_unique<bench::CapturedLaunch>(stream, run_gemm_ex);
    columns.push_back(std::move(column));
  }
  for (const auto& [name, text] : args.configs) {
    json line = {{"column", name}, {"outcome", "ok"}};
    try {
      const Config config = space->space.from_json(json::parse(text));
      const gemm::GemmConfig gemm_config = to_gemm_config(config);
      line["config"] = gemm::to_string(gemm_config);
      line["config_json"] = config.to_json();
      const std::string cubin = cubins.compile(config, problem).string();
      line["cubin"] = cubin;  // what peers.py's cutune column loads (scripts/gpu/gemm-peers.sh)
      CUmodule module = nullptr;
      check(cuModuleLoad(&module, cubin.c_str()), "cuModuleLoad");
      DeviceBuffer& workspace = workspaces[name];
      workspace = DeviceBuffer(gemm::workspace_bytes(gemm_config, shape));
      auto launch = std::make_unique<gemm::GemmLaunch>(
          gemm::GemmKernel::load(module), shape, gemm_config,
          gemm::GemmOperands{a.pointer, b.pointer, d.pointer, workspace.pointer}, device);
      check(cuMemsetD8Async(d.pointer, 0xff, d.bytes, stream), "cuMemsetD8Async");
      launch->launch(stream);
      line["grid_blocks"] = launch->grid_blocks();
      line["shared_bytes"] = launch->shared_bytes();
      if (checked(line)) {
        Column column{name, line, std::move(launch), nullptr, {}, {}};
        column.graph = std::make_unique<bench::CapturedLaunch>(
            stream, [stream, bound = column.launch.get()] { bound->launch(stream); });
        columns.push_back(std::move(column));
      }
      continue;
    } catch (const cuda::worker::CudaError&) {
      throw;  // the context is gone: no later column could be trusted
    } catch (const std::exception& error) {
      line["outcome"] = "error";
      line["detail"] = error.what();
    }
    failed.push_back(line);
  }

  bench::GraphTimer timer(stream);
  timer.set_flush(args.flush);
  timer.ramp(*columns[0].graph, args.ramp_seconds, args.method);
  // `reps` replays of one column; their median.
  auto timed = [&](Column& column) {
    const std::vector<double> times = timer.time(*column.graph, args.reps, args.method);
    column.times.insert(column.times.end(), times.begin(), times.end());
    return bench::median({times.begin(), times.end()});
  };
  // Every column is timed right after cuBLAS and paired with that timing, in an order that
  // rotates from round to round: the card's clocks drift over the seconds a round of many columns
  // takes, and a fixed order with one cuBLAS timing per round read the same cubin 7 % slower as
  // the last column than as the first.
  Column& reference = columns[0];
  const std::size_t others = columns.size() - 1;
  for (int round = 0; round < args.rounds; ++round) {
    if (others == 0) timed(reference);
    for (std::size_t i = 0; i < others; ++i) {
      Column& column = columns[1 + (i + static_cast<std::size_t>(round)) % others];
      const double cublas_ms = timed(reference);
      column.round_ratios.push_back(cublas_ms / timed(column));
    }
  }
  reference.round_ratios = {1.0};
  // Checked again after the many timed launches, with D poisoned (NaN) first: a launch that
  // stopped writing some of D, or wrote it wrong only once warm, fails here.
  for (Column& column : columns) {
    if (column.launch == nullptr) continue;  // cuBLAS
    json again = {{"outcome", "ok"}};
    check(cuMemsetD8Async(d.pointer, 0xff, d.bytes, stream), "cuMemsetD8Async");
    column.launch->launch(stream);
    const std::size_t failures = failed.size();
    checked(again);
    failed.resize(failures);  // reported on the column's own line
    column.line["after_timing"] = again["outcome"];
  }
  std::vector<json> lines;
  for (Column& column : columns) {
    const double ms = bench::median(column.times);
    column.line["column"] = column.name;
    column.line["ms"] = ms;
    column.line["tflops"] = flops / ms * 1e-9;
    column.line["vs_cublas"] = bench::median(column.round_ratios);
    column.line["launches"] = column.times.size();
    // The spread, to tell a slow mode of some launches from a uniformly slower launch.
    const TimingSummary spread = summarize_timings(column.times);
    column.line.update({{"min_ms", spread.min_ms},
                        {"p25_ms", spread.p25_ms},
                        {"p75_ms", spread.p75_ms},
                        {"max_ms", spread.max_ms}});
    lines.push_back(column.line);
  }
  lines.insert(lines.end(), failed.begin(), failed.end());
  for (json& line : lines) {
    line["problem"] = problem.canonical();
    line["timing"] = args.flush ? "flushed" : "back_to_back";
    line["shape"] =
        std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
    std::printf("%s\n", line.dump().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gemm_peer_bench: %s\n", error.what());
    return 1;
  }
}
