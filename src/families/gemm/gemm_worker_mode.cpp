// The GEMM family's mode in `cutune-cuda-worker`: it answers the family's requests (op "family",
// family "gemm", gemm_protocol.hpp's GemmRequest). In the worker's table of families
// (src/families/CMakeLists.txt).
//
// Per problem and seed, once: A and B filled with the worker's random non-zero values, and
// cuBLASLt's D = A * B as the reference. Per candidate: the cubin's module from the worker's
// cache, GemmLaunch (tensor maps, persistent grid, cluster), D poisoned with NaN and its guard
// regions with GuardedBuffer's poison, one launch, the guards and the normwise relative error
// against cuBLAS, then the worker's timing loop (L2 flushed before each repetition), then the
// guards again and kRechecksAfterTiming more checks (a kernel wrong only sometimes). A launch the
// driver refuses is the candidate's launch_error; a sticky error ends the worker as for any kernel.
// A request with rounds > 0 times several candidates and cuBLASLt in paired rounds
// (GemmRequest::rounds) for the tune's final tournament.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/worker_host.hpp"
#include "gemm/gemm_cublas.hpp"
#include "gemm/gemm_launch.hpp"
#include "gemm/gemm_protocol.hpp"

namespace cutune::gemm {
namespace {

namespace proto = cuda::protocol;
using namespace cuda::worker;

// The request's problem. Throws std::invalid_argument naming the family's mode, the request and
// what is wrong; the worker sends it back as the request's error.
GemmProblem problem_of(const proto::GemmRequest& request) {
  try {
    GemmProblem problem;
    problem.m = request.m;
    problem.n = request.n;
    problem.k = request.k;
    problem.dtype = parse_dtype(request.dtype);
    problem.b_layout = parse_b_layout(request.b_layout);
    if (problem.m <= 0 || problem.n <= 0 || problem.k <= 0) {
      throw std::invalid_argument("gemm problem " + std::to_string(problem.m) + "x" +
                                  std::to_string(problem.n) + "x" + std::to_string(problem.k) +
                                  " has a non-positive dimension");
    }
    return problem;
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument("the worker's mode of family gemm, request " +
                                std::to_string(request.id) + ": " + error.what());
  }
}

proto::Dtype element_type(DType dtype) {
  return dtype == DType::bf16 ? proto::Dtype::bf16 : proto::Dtype::f16;
}

// Everything kept while requests share a problem and seed.
struct Operands {
  std::string key;
  GemmProblem problem;
  DeviceBuffer a, b, split_k;
  GuardedBuffer d;  // the only buffer a candidate writes besides its split-K workspace
  std::vector<std::byte> expected;  // cuBLAS's D
  std::unique_ptr<CublasGemm> cublas;
};

class GemmMode : public Mode {
 public:
  explicit GemmMode(Host& host) : host_(host) {}

  proto::MeasureReply measure(const nlohmann::json& message) override {
    const auto request = message.get<proto::GemmRequest>();
    const GemmProblem problem = problem_of(request);
    prepare(problem, request.seed);
    proto::MeasureReply reply;
    reply.id = request.id;
    reply.sm_clock_start_mhz = host_.sm_clock_mhz();
    const auto start = std::chrono::steady_clock::now();
    if (request.rounds > 0) {
      run_rounds(request, reply);
    } else if (request.cublas_only) {
      const CublasGemm& cublas = *operands_.cublas;
      host_.time(
          [&] {
            cublas.run(operands_.a.pointer, operands_.b.pointer, operands_.d.pointer,
                       host_.stream());
          },
          request.timing, reply);
      reply.outcome = "ok";
    } else {
      run_candidate(request, reply);
    }
    reply.kernel_ms = milliseconds_since(start);
    reply.sm_clock_end_mhz = host_.sm_clock_mhz();
    return reply;
  }

 private:
  void run_candidate(const proto::GemmRequest& request, proto::MeasureReply& reply) {
    std::optional<GemmLaunch> launch =
        check_candidate(request.cubin, request.config, request, reply);
    if (launch && request.time) {
      host_.time([&] { launch->launch(host_.stream()); }, request.timing, reply);
      if (std::string damage = operands_.d.damage("D"); !damage.empty()) {
        reply.outcome = "wrong_result";
        reply.detail = "during its timed runs: " + damage;
        return;
      }
      recheck_after_timing(
          [&](proto::MeasureReply& checked) {
            return check_candidate(request.cubin, request.config, request, checked).has_value();
          },
          reply);
    }
  }

  // Loads, launches once and compares with cuBLAS; the launch when the reply's outcome is "ok".
  // The split-K workspace must already be large enough when `reserve` is false.
  std::optional<GemmLaunch> check_candidate(const std::string& cubin, const std::string& name,
                                            const proto::GemmRequest& request,
                                            proto::MeasureReply& reply, bool reserve = true) {
    try {
      const GemmConfig config = parse_config(name);
      const GemmKernel kernel = GemmKernel::load(host_.module(cubin));
      const std::size_t workspace = workspace_bytes(config, operands_.problem);
      if (reserve && workspace > operands_.split_k.bytes) {
        operands_.split_k = DeviceBuffer(workspace);
      }
      const GemmOperands buffers{operands_.a.pointer, operands_.b.pointer, operands_.d.pointer,
                                 operands_.split_k.pointer};
      GemmLaunch launch(kernel, operands_.problem, config, buffers, host_.device());
      check(cuMemsetD8Async(operands_.d.pointer, 0xff, operands_.d.bytes, host_.stream()),
            "cuMemsetD8Async");
      operands_.d.poison(host_.stream());
      launch.launch(host_.stream());
      check(cuStreamSynchronize(host_.stream()), "candidate");
      if (std::string damage = operands_.d.damage("D"); !damage.empty()) {
        reply.outcome = "wrong_result";
        reply.detail = std::move(damage);
        return std::nullopt;
      }
      std::vector<std::byte> got(operands_.d.bytes);
      check(cuMemcpyDtoH(got.data(), operands_.d.pointer, got.size()), "cuMemcpyDtoH");
      const proto::Dtype dtype = element_type(operands_.problem.dtype);
      const std::uint64_t count =
          static_cast<std::uint64_t>(operands_.problem.m) * operands_.problem.n;
      const Comparison result = compare(got, operands_.expected, dtype, count);
      reply.max_rel_error = result.max_rel_error;
      const double limit =
          request.tolerance >= 0 ? request.tolerance : proto::default_tolerance(dtype);
      if (!result.problem.empty() || !(result.max_rel_error <= limit)) {
        reply.outcome = "wrong_result";
        reply.detail = "D: " + (result.problem.empty()
                                    ? "relative error " + std::to_string(result.max_rel_error) +
                                          " above tolerance " + std::to_string(limit)
                                    : result.problem);
        return std::nullopt;
      }
      reply.outcome = "ok";
      return launch;
    } catch (const CudaError&) {
      throw;
    } catch (const std::invalid_argument& error) {  // a config name that does not parse
      reply.outcome = "launch_error";
      reply.detail = error.what();
    } catch (const std::runtime_error& error) {
      // GemmLaunch reports refused driver calls as plain errors: the context decides.
      const CUresult state = cuCtxSynchronize();
      if (state != CUDA_SUCCESS) {
        throw CudaError(state, std::string(error.what()) + "; context: " + error_name(state));
      }
      reply.outcome = "launch_error";
      reply.detail = error.what();
    }
    return std::nullopt;
  }

  // Paired rounds (GemmRequest::rounds): the split-K workspace sized once for every candidate
  // (the launches keep its address), each candidate checked, then the worker's paired rounds with
  // cuBLASLt as the reference (run_paired_rounds).
  void run_rounds(const proto::GemmRequest& request, proto::MeasureReply& reply) {
    std::size_t workspace = 0;
    for (const proto::GemmCandidate& c : request.candidates) {
      try {
        workspace = std::max(workspace, workspace_bytes(parse_config(c.config), operands_.problem));
      } catch (const std::invalid_argument&) {
        // check_candidate reports it.
      }
    }
    if (workspace > operands_.split_k.bytes) operands_.split_k = DeviceBuffer(workspace);
    std::vector<std::optional<GemmLaunch>> launches;
    for (const proto::GemmCandidate& c : request.candidates) {
      proto::MeasureReply check_reply;
      launches.push_back(check_candidate(c.cubin, c.config, request, check_reply, false));
      reply.candidate_outcomes.push_back(check_reply.outcome);
      reply.candidate_details.push_back(check_reply.detail);
    }
    std::vector<std::function<void()>> timed;
    for (std::optional<GemmLaunch>& launch : launches) {
      timed.emplace_back();
      if (launch) timed.back() = [&launch, this] { launch->launch(host_.stream()); };
    }
    const CublasGemm& cublas = *operands_.cublas;
    run_paired_rounds(
        host_, timed,
        [&] {
          cublas.run(operands_.a.pointer, operands_.b.pointer, operands_.d.pointer, host_.stream());
        },
        request.rounds, request.reps, reply, request.timing.flush_l2);
    recheck_after_rounds(
        timed,
        [&](std::size_t j, proto::MeasureReply& checked) {
          const proto::GemmCandidate& c = request.candidates[j];
          return check_candidate(c.cubin, c.config, request, checked, false).has_value();
        },
        reply);
  }

  void prepare(const GemmProblem& problem, std::uint64_t seed) {
    const std::string key =
        std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
        std::to_string(problem.k) + "/" + std::to_string(static_cast<int>(problem.dtype)) + "/" +
        std::to_string(static_cast<int>(problem.b_layout)) + "/" + std::to_string(seed);
    if (key == operands_.key) return;
    operands_ = Operands{};
    operands_.problem = problem;
    const proto::Dtype dtype = element_type(problem.dtype);
    const auto elements = [](std::int64_t rows, std::int64_t columns) {
      return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(columns);
    };
    Random rng(seed);
    const auto upload = [&](std::uint64_t count) {
      const std::vector<std::byte> values = random_values(dtype, count, rng);
      DeviceBuffer buffer(values.size());
      check(cuMemcpyHtoD(buffer.pointer, values.data(), values.size()), "cuMemcpyHtoD");
      return buffer;
    };
    operands_.a = upload(elements(problem.m, problem.k));
    operands_.b = upload(elements(problem.k, problem.n));
    operands_.d = GuardedBuffer(elements(problem.m, problem.n) * proto::dtype_size(dtype));
    // The uploads ran on the legacy stream and may still be in flight.
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    operands_.cublas = std::make_unique<CublasGemm>(problem);
    check(cuMemsetD8Async(operands_.d.pointer, 0xff, operands_.d.bytes, host_.stream()),
          "cuMemsetD8Async");
    operands_.cublas->run(operands_.a.pointer, operands_.b.pointer, operands_.d.pointer,
                          host_.stream());
    check(cuStreamSynchronize(host_.stream()), "cuBLASLt reference");
    operands_.expected.resize(operands_.d.bytes);
    check(cuMemcpyDtoH(operands_.expected.data(), operands_.d.pointer, operands_.d.bytes),
          "cuMemcpyDtoH");
    operands_.key = key;
  }

  Host& host_;
  Operands operands_;
};

}  // namespace
}  // namespace cutune::gemm

namespace cutune::cuda::worker::families {

// The worker's table of families names it (src/families/worker_table.cpp.in).
std::unique_ptr<Mode> gemm(Host& host) { return std::make_unique<cutune::gemm::GemmMode>(host); }

}  // namespace cutune::cuda::worker::families
