#include "gemm_fp8/gemm_fp8_evaluator.hpp"

#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "eval/backend_support.hpp"
#include "gemm/gemm_evaluator.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"
#include "gemm_fp8/gemm_fp8_protocol.hpp"
#include "gemm_fp8/gemm_fp8_space.hpp"

namespace cutune {
namespace {

namespace proto = cuda::protocol;

gemm_fp8::Fp8Problem checked(const Problem& problem) {
  const gemm_fp8::Fp8Problem p = to_fp8_problem(problem);
  if (const auto reasons = gemm_fp8::violations(gemm_fp8::Fp8Config{}, p); !reasons.empty()) {
    throw std::invalid_argument("gemm_fp8 problem " + problem.canonical() + ": " +
                                gemm::joined(reasons));
  }
  return p;
}

}  // namespace

struct Fp8Evaluator::Impl {
  GemmEvaluatorOptions options;
  gemm_fp8::Fp8Problem problem;
  Fp8Compiler compiler;
  GemmWorkers workers;
  std::atomic<std::uint64_t> next_id{1};

  Impl(const Problem& given, GemmEvaluatorOptions o)
      : options(std::move(o)),
        problem(checked(given)),
        compiler(gemm_fp8::LibraryKind(problem), options.compile),
        workers(start_gemm_workers(options, "the fp8 Hopper GEMM family")) {}

  // A request in the problem's timing regime, `scale` times the timing budget.
  proto::Fp8Request request(int scale) {
    proto::Fp8Request r;
    r.id = next_id++;
    r.m = problem.m;
    r.n = problem.n;
    r.k = problem.k;
    r.scaling = gemm_fp8::to_string(problem.scaling);
    r.a_format = gemm_fp8::to_string(problem.a_format);
    r.b_format = gemm_fp8::to_string(problem.b_format);
    r.seed = options.seed;
    r.tolerance = options.tolerance;
    r.timing = gemm_timing(options, scale, problem.timing);
    return r;
  }

  // One candidate whose library compiled (or failed to), measured on worker `slot`.
  Measurement measure(std::size_t slot, const gemm_fp8::Fp8Config& config,
                      const cuda::CompileResult& library, int scale) {
    proto::Fp8Request r = request(scale);
    r.library = library.cubin.string();
    r.config = gemm_fp8::to_string(config);
    Measurement m = library.ok() ? workers.pool->measure(slot, proto::family_request(r)).measurement
                                 : compile_failure_measurement(library);
    m.compile_s = library.compile_s;
    return m;
  }

  // Every legal config's library queued at once; each worker measures the next one whose library
  // is ready while the rest compile.
  std::vector<Measurement> run(std::span<const Config> batch, int scale) {
    std::vector<Measurement> out(batch.size());
    std::vector<gemm_fp8::Fp8Config> configs;
    std::vector<std::shared_future<cuda::CompileResult>> libraries(batch.size());
    const int smem = static_cast<int>(workers.report.smem_optin_bytes);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      configs.push_back(to_fp8_config(batch[i]));
      if (const auto reasons = gemm_fp8::violations(configs[i], problem, smem); !reasons.empty()) {
        out[i] = {.outcome = Outcome::invalid_config, .detail = gemm::joined(reasons)};
      } else {
        libraries[i] = compiler.submit(configs[i]);
      }
    }
    std::mutex merge;
    eval::for_each_on_slots(workers.pool->size(), batch.size(),
                            [&](std::size_t slot, std::size_t i) {
                              if (!libraries[i].valid()) return;
                              Measurement m = measure(slot, configs[i], libraries[i].get(), scale);
                              std::lock_guard lock(merge);
                              out[i] = std::move(m);
                            });
    return out;
  }
};

Fp8Evaluator::Fp8Evaluator(const Problem& problem, GemmEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(problem, std::move(options))) {}

Fp8Evaluator::~Fp8Evaluator() = default;

std::vector<Measurement> Fp8Evaluator::evaluate(std::span<const Config> batch) {
  return impl_->run(batch, 1);
}

std::vector<Measurement> Fp8Evaluator::retime(std::span<const Config> batch) {
  return impl_->run(batch, 5);  // as the bf16 family's retime: five times the budget
}

Measurement Fp8Evaluator::time_cublas(int scale) {
  proto::Fp8Request r = impl_->request(scale);
  r.cublas_only = true;
  return impl_->workers.pool->measure(0, proto::family_request(r)).measurement;
}

std::string Fp8Evaluator::device_name() const { return impl_->workers.device_name(); }

std::string Fp8Evaluator::toolchain() const {
  return proto::toolchain_key(impl_->compiler.toolchain(), impl_->workers.report.driver_version);
}

Device Fp8Evaluator::device() const { return impl_->workers.device(); }

}  // namespace cutune
