#include "gemm/gemm_family_record.hpp"

#include <memory>

#include "gemm/gemm_space.hpp"

namespace cutune {

Family gemm_tuning_family(GemmEvaluatorOptions options) {
  static const std::unique_ptr<TuningSpace> space = make_gemm_space();
  Family f;
  f.name = "gemm";
  f.version = gemm_source_version(options.compile);
  f.summary = "Hopper bf16/fp16 GEMM (src/families/gemm/device/hopper_gemm.cu)";
  f.tuning = space.get();
  f.example_problem = gemm_problem(2048, 4096, 4096, "bf16");
  f.device = Device::h200();
  f.resolve = resolve_gemm_problem;
  f.make_evaluator = make_gemm_evaluator<GemmEvaluator>(std::move(options));
  f.reference_name = "cuBLASLt";
  f.checked_against = "cuBLASLt";
  f.config_name = [](const Config& config) { return gemm::to_string(to_gemm_config(config)); };
  f.flop_count = [](const Problem& problem) { return gemm_flops(to_gemm_problem(problem)); };
  return f;
}

Family families::gemm() { return gemm_tuning_family(); }

}  // namespace cutune
