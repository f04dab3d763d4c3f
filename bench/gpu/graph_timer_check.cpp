// Measures graph_timer.hpp's methods side by side on cuBLASLt, so that the peer table's method is
// shown to agree with the tuner worker's (events around plain stream launches) rather than assumed
// to: per problem, on the worker's random operands and after a clock ramp, `rounds` rounds that
// each time 30 launches by every method in turn; then the stream method again on zeroed A and B
// ("stream_zeros": a GEMM on zeros draws less power, so it may clock higher, and times on zeros
// alone are not the figure); and cublasGemmEx as torch.matmul calls it, by the stream method in the
// same rounds
// ("gemm_ex": whether torch's cuBLAS and cuBLASLt's heuristic #1 differ by algorithm, not
// harness). Prints each method's median and its difference from the stream method's (or the error
// that stopped it), as JSON lines.
//
//   graph_timer_check [MxNxK ...]   (bf16, B row-major K x N; default: S3, 128x8192x8192, 8192^3)
#include <cuda.h>

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/cuda/worker_host.hpp"
#include "cublas_gemm_ex.hpp"
#include "gemm/gemm_cublas.hpp"
#include "graph_timer.hpp"

namespace {

using namespace cutune;
using cuda::worker::check;
using Method = bench::GraphTimer::Method;

constexpr int kReps = 30;
constexpr int kRounds = 5;

int run(const std::vector<std::string>& shapes) {
  const CUstream stream = bench::open_device_stream().stream;
  bench::GraphTimer timer(stream);
  cuda::worker::Random rng(1);
  const std::vector<std::pair<const char*, Method>> methods = {
      {"stream", Method::stream},
      {"in_graph", Method::in_graph},
      {"per_launch_graph", Method::per_launch_graph},
      {"stream_zeros", Method::stream},
      {"gemm_ex", Method::stream}};
  for (const std::string& text : shapes) {
    gemm::GemmProblem problem;
    if (std::sscanf(text.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64, &problem.m, &problem.n,
                    &problem.k) != 3) {
      throw std::invalid_argument("shape '" + text + "' is not MxNxK");
    }
    // The worker's random non-zero values, as a tune and gemm_peer_bench time on.
    const auto upload = [&](std::int64_t count) {
      const auto values = cuda::worker::random_values(cuda::protocol::Dtype::bf16, count, rng);
      cuda::worker::DeviceBuffer buffer(values.size());
      check(cuMemcpyHtoD(buffer.pointer, values.data(), values.size()), "cuMemcpyHtoD");
      return buffer;
    };
    const cuda::worker::DeviceBuffer a = upload(problem.m * problem.k),
                                     b = upload(problem.k * problem.n),
                                     d(problem.m * problem.n * 2);
    const gemm::CublasGemm cublas(problem);
    const bench::CapturedLaunch launch(
        stream, [&] { cublas.run(a.pointer, b.pointer, d.pointer, stream); });
    const bench::CublasGemmEx gemm_ex(problem);
    const bench::CapturedLaunch gemm_ex_launch(
        stream, [&] { gemm_ex.run(a.pointer, b.pointer, d.pointer, stream); });
    timer.ramp(launch, 1.0, bench::GraphTimer::Method::stream);
    std::vector<std::vector<double>> times(methods.size());
    std::vector<std::string> errors(methods.size());  // a method that failed is reported, not run
    for (int round = 0; round < 2 * kRounds; ++round) {
      // The zeros' rounds come last, after A and B are cleared.
      if (round == kRounds) {
        check(cuMemsetD8(a.pointer, 0, a.bytes), "cuMemsetD8");
        check(cuMemsetD8(b.pointer, 0, b.bytes), "cuMemsetD8");
        check(cuCtxSynchronize(), "cuCtxSynchronize");  // the legacy stream's memsets
      }
      for (std::size_t i = 0; i < methods.size(); ++i) {
        const bool zeros = std::string(methods[i].first) == "stream_zeros";
        if (!errors[i].empty() || zeros != (round >= kRounds)) continue;
        try {
          const bool ex = std::string(methods[i].first) == "gemm_ex";
          const std::vector<double> sample =
              timer.time(ex ? gemm_ex_launch : launch, kReps, methods[i].second);
          times[i].insert(times[i].end(), sample.begin(), sample.end());
        } catch (const std::exception& error) {
          errors[i] = error.what();
        }
      }
    }
    if (times[0].empty()) throw std::runtime_error("the stream method failed: " + errors[0]);
    const double stream_ms = bench::median(times[0]);
    for (std::size_t i = 0; i < methods.size(); ++i) {
      nlohmann::json line = {{"shape", text}, {"method", methods[i].first}};
      if (errors[i].empty()) {
        const double ms = bench::median(times[i]);
        line.update({{"median_ms", ms},
                     {"minus_stream_us", (ms - stream_ms) * 1e3},
                     {"launches", times[i].size()}});
      } else {
        line["error"] = errors[i];
      }
      std::printf("%s\n", line.dump().c_str());
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> shapes(argv + 1, argv + argc);
  if (shapes.empty()) shapes = {"2048x4096x4096", "128x8192x8192", "8192x8192x8192"};
  try {
    return run(shapes);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "graph_timer_check: %s\n", error.what());
    return 1;
  }
}
