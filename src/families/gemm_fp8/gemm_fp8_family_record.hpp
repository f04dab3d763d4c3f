// The fp8 GEMM family's record (cutune/family.hpp): what `cutune tune gemm_fp8` and
// `cutune space gemm_fp8` use. Its runtime family (cutune/gemm_fp8.hpp) is gemm_fp8_family.cpp.
#pragma once

#include "cutune/family.hpp"
#include "cutune/gemm_types.hpp"

namespace cutune {

// Name "gemm_fp8", version the kernel source's hash (gemm_fp8_source_version), the space of
// make_gemm_fp8_space() (built once), problems resolved by resolve_gemm_fp8_problem, evaluators
// Fp8Evaluator with cuBLASLt's fp8 GEMM as the reference. Throws std::runtime_error when the
// kernel source cannot be read.
Family gemm_fp8_tuning_family(GemmEvaluatorOptions options = {});

namespace families {
Family gemm_fp8();  // the table's entry: gemm_fp8_tuning_family() with the default options
}

}  // namespace cutune
