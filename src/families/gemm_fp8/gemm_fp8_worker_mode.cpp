// The fp8 GEMM family's mode in `cutune-cuda-worker` (family "gemm_fp8", gemm_fp8_protocol.hpp's
// Fp8Request), in the worker's table of families (src/families/CMakeLists.txt).
//
// Per problem and seed, once: A and B filled as a quantizer fills them from normal data
// (random_fp8: real fp8 ranges), scales drawn from 2^-4 to 4 in the shape the scaling asks for,
// and the reference: the operands dequantized on the host (each element times its scales) and
// multiplied in fp32 by cuBLASLt, so the reference is the scaled product itself, independent of
// any fp8 kernel. Per candidate: its library loaded once, D poisoned, one launch, the guards and
// the normwise relative error against the reference (in bf16), then the worker's timing loop and
// more checks, as the bf16 family's mode.
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/worker_host.hpp"
#include "gemm_fp8/gemm_fp8_cublas.hpp"
#include "gemm_fp8/gemm_fp8_inputs.hpp"
#include "gemm_fp8/gemm_fp8_launch.hpp"
#include "gemm_fp8/gemm_fp8_protocol.hpp"

namespace cutune::gemm_fp8 {
namespace {

namespace proto = cuda::protocol;
using namespace cuda::worker;

template <typename T>
DeviceBuffer upload(const std::vector<T>& values) {
  DeviceBuffer buffer(values.size() * sizeof(T));
  check(cuMemcpyHtoD(buffer.pointer, values.data(), buffer.bytes), "cuMemcpyHtoD");
  return buffer;
}

struct Operands {
  std::string key;
  Fp8Problem problem;
  DeviceBuffer a, b, scale_a, scale_b;
  GuardedBuffer d;
  std::vector<std::byte> expected;  // the reference, rounded to bf16
  std::unique_ptr<LtGemm> cublas;   // the fp8 yardstick, unless cuBLASLt refused the scaling:
  std::string cublas_refused;       // why
};

class Fp8Mode : public Mode {
 public:
  explicit Fp8Mode(Host& host) : host_(host) {}

  proto::MeasureReply measure(const nlohmann::json& message) override {
    const auto request = message.get<proto::Fp8Request>();
    prepare(request);
    proto::MeasureReply reply;
    reply.id = request.id;
    reply.sm_clock_start_mhz = host_.sm_clock_mhz();
    if (request.cublas_only) {
      // cuBLASLt is checked as a candidate is: a scale layout it reads otherwise shows here.
      if (!operands_.cublas) {
        reply.outcome = "launch_error";
        reply.detail = operands_.cublas_refused;
      } else if (judge([&] { run_cublas(); }, request, reply)) {
        host_.time([&] { run_cublas(); }, request.timing, reply);
      }
    } else if (std::optional<Fp8Launch> launch = check_candidate(request, reply);
               launch && request.time) {
      host_.time([&] { launch->launch(host_.stream()); }, request.timing, reply);
      if (std::string damage = operands_.d.damage("D"); !damage.empty()) {
        reply.outcome = "wrong_result";
        reply.detail = "during its timed runs: " + damage;
      } else {
        recheck_after_timing(
            [&](proto::MeasureReply& checked) {
              return check_candidate(request, checked).has_value();
            },
            reply);
      }
    }
    reply.sm_clock_end_mhz = host_.sm_clock_mhz();
    return reply;
  }

 private:
  void run_cublas() const {
    operands_.cublas->run(operands_.a.pointer, operands_.b.pointer, operands_.d.pointer,
                          operands_.scale_a.pointer, operands_.scale_b.pointer, host_.stream());
  }

  // Runs `once` into a poisoned D and compares D with the reference: true when it is within the
  // request's tolerance ("ok"), else false with the reply's outcome and detail saying why.
  bool judge(const std::function<void()>& once, const proto::Fp8Request& request,
             proto::MeasureReply& reply) {
    check(cuMemsetD8Async(operands_.d.pointer, 0xff, operands_.d.bytes, host_.stream()),
          "cuMemsetD8Async");
    operands_.d.poison(host_.stream());
    once();
    check(cuStreamSynchronize(host_.stream()), "candidate");
    std::string damage = operands_.d.damage("D");
    std::vector<std::byte> got(operands_.d.bytes);
    check(cuMemcpyDtoH(got.data(), operands_.d.pointer, got.size()), "cuMemcpyDtoH");
    const Comparison result = compare(got, operands_.expected, proto::Dtype::bf16,
                                      static_cast<std::uint64_t>(operands_.problem.m) *
                                          static_cast<std::uint64_t>(operands_.problem.n));
    reply.max_rel_error = result.max_rel_error;
    const double limit = request.tolerance >= 0 ? request.tolerance : proto::kFp8Tolerance;
    if (damage.empty() && result.problem.empty() && result.max_rel_error <= limit) {
      reply.outcome = "ok";
      return true;
    }
    reply.outcome = "wrong_result";
    reply.detail = !damage.empty() ? damage
                   : !result.problem.empty()
                       ? "D: " + result.problem
                       : "D: relative error " + std::to_string(result.max_rel_error) +
                             " above tolerance " + std::to_string(limit);
    return false;
  }

  // Loads, launches once and judges the candidate; its launch when the outcome is "ok".
  std::optional<Fp8Launch> check_candidate(const proto::Fp8Request& request,
                                           proto::MeasureReply& reply) {
    try {
      parse_config(request.config);  // a name that does not parse is a launch_error
      Fp8Launch launch(Fp8Library::load(request.library), operands_.problem,
                       {operands_.a.pointer, operands_.b.pointer, operands_.d.pointer,
                        operands_.scale_a.pointer, operands_.scale_b.pointer},
                       host_.report().sm_count);
      if (judge([&] { launch.launch(host_.stream()); }, request, reply)) return launch;
    } catch (const CudaError&) {
      throw;
    } catch (const std::exception& error) {  // a bad name, a refused problem or launch
      if (const CUresult state = cuCtxSynchronize(); state != CUDA_SUCCESS) {
        throw CudaError(state, std::string(error.what()) + "; context: " + error_name(state));
      }
      reply.outcome = "launch_error";
      reply.detail = error.what();
    }
    return std::nullopt;
  }

  void prepare(const proto::Fp8Request& r) {
    const std::string key = std::to_string(r.m) + "x" + std::to_string(r.n) + "x" +
                            std::to_string(r.k) + "/" + r.scaling + "/" + r.a_format + "x" +
                            r.b_format + "/" + std::to_string(r.seed);
    if (key == operands_.key) return;
    operands_ = Operands{};
    Fp8Problem& p = operands_.problem;
    p = {.m = r.m,
         .n = r.n,
         .k = r.k,
         .scaling = parse_scaling(r.scaling),
         .a_format = parse_format(r.a_format, "a_format"),
         .b_format = parse_format(r.b_format, "b_format")};
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) {
      throw std::invalid_argument("the worker's mode of family gemm_fp8, request " +
                                  std::to_string(r.id) + ": a non-positive dimension");
    }
    Random rng(r.seed);
    const auto next = [&rng] { return rng.next(); };
    const auto a = random_fp8(p.a_format, static_cast<std::uint64_t>(p.m * p.k), next);
    const auto b = random_fp8(p.b_format, static_cast<std::uint64_t>(p.n * p.k), next);
    const ScaleLayout layout(p);
    const auto sa = random_scales(layout.a_count(), next);
    const auto sb = random_scales(layout.b_count(), next);
    operands_.a = upload(a);
    operands_.b = upload(b);
    operands_.scale_a = upload(sa);
    operands_.scale_b = upload(sb);
    operands_.d = GuardedBuffer(static_cast<std::size_t>(p.m * p.n) * 2);
    {
      const DeviceBuffer fa = upload(dequantized(a, p.a_format, p.m, p.k, sa, layout, true));
      const DeviceBuffer fb = upload(dequantized(b, p.b_format, p.n, p.k, sb, layout, false));
      DeviceBuffer fd(static_cast<std::size_t>(p.m * p.n) * sizeof(float));
      check(cuCtxSynchronize(), "cuCtxSynchronize");
      LtGemm(p, LtGemm::Kind::fp32).run(fa.pointer, fb.pointer, fd.pointer, 0, 0, host_.stream());
      check(cuStreamSynchronize(host_.stream()), "fp32 reference");
      std::vector<float> reference(static_cast<std::size_t>(p.m * p.n));
      check(cuMemcpyDtoH(reference.data(), fd.pointer, fd.bytes), "cuMemcpyDtoH");
      operands_.expected.resize(reference.size() * 2);
      for (std::size_t i = 0; i < reference.size(); ++i) {
        const std::uint16_t bits = float_to_bf16(reference[i]);
        std::memcpy(operands_.expected.data() + 2 * i, &bits, 2);
      }
    }
    try {
      operands_.cublas = std::make_unique<LtGemm>(p, LtGemm::Kind::fp8_scaled);
    } catch (const std::runtime_error& error) {  // a scaling or formats this cuBLASLt lacks
      operands_.cublas_refused = error.what();
    }
    operands_.key = key;
  }

  Host& host_;
  Operands operands_;
};

}  // namespace
}  // namespace cutune::gemm_fp8

namespace cutune::cuda::worker::families {

// The worker's table of families names it (src/families/worker_table.cpp.in).
std::unique_ptr<Mode> gemm_fp8(Host& host) {
  return std::make_unique<cutune::gemm_fp8::Fp8Mode>(host);
}

}  // namespace cutune::cuda::worker::families
