// The Hopper GEMM family's record (cutune/family.hpp), without a loader: what `cutune tune gemm`,
// `cutune space gemm` and the table of built-in families use; gemm_family() (cutune/gemm.hpp)
// adds the runtime's loader to it.
#pragma once

#include "cutune/family.hpp"
#include "gemm/gemm_evaluator.hpp"

namespace cutune {

// Name "gemm", version the kernel source's hash (gemm_source_version), the space of
// make_gemm_space() (built once, kept for the program's life), problems resolved by
// resolve_gemm_problem, evaluators GemmEvaluator(problem, options) with cuBLASLt as the reference.
// Throws std::runtime_error when the kernel source cannot be read.
Family gemm_tuning_family(GemmEvaluatorOptions options = {});

namespace families {
Family gemm();  // the table's entry: gemm_tuning_family() with the default options
}

}  // namespace cutune
