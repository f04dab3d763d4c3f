#include "gemm_fp8/gemm_fp8_family_record.hpp"

#include <memory>

#include "gemm/gemm_family_record.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"
#include "gemm_fp8/gemm_fp8_evaluator.hpp"
#include "gemm_fp8/gemm_fp8_space.hpp"

namespace cutune {

Family gemm_fp8_tuning_family(GemmEvaluatorOptions options) {
  static const std::unique_ptr<TuningSpace> space = make_gemm_fp8_space();
  Family f;
  f.name = "gemm_fp8";
  f.version = gemm_fp8_source_version(options.compile);
  f.summary =
      "Hopper fp8 e4m3 GEMM, bf16 out, scaled per tensor, row x column or 1x128/128x128 "
      "block (src/families/gemm_fp8/device/hopper_gemm_fp8.cu)";
  f.tuning = space.get();
  f.example_problem = gemm_fp8_problem(2048, 4096, 4096, "tensor");
  f.device = Device::h200();
  f.resolve = resolve_gemm_fp8_problem;
  f.make_evaluator = make_gemm_evaluator<Fp8Evaluator>(std::move(options));
  f.reference_name = "cuBLASLt fp8";
  f.checked_against = "cuBLASLt in fp32 on the dequantized operands";
  f.flop_count = [](const Problem& problem) { return gemm_flops(to_fp8_problem(problem)); };
  return f;
}

Family families::gemm_fp8() { return gemm_fp8_tuning_family(); }

}  // namespace cutune
