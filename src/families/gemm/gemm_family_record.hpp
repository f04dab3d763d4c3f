// The Hopper GEMM family's record (cutune/family.hpp), without a loader: what `cutune tune gemm`,
// `cutune space gemm` and the table of built-in families use; gemm_family() (cutune/gemm.hpp)
// adds the runtime's loader to it.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "cutune/family.hpp"
#include "gemm/gemm_evaluator.hpp"

namespace cutune {

// Family::make_evaluator of a Hopper GEMM family (gemm, gemm_fp8): an `Evaluator` made from the
// problem and `options` (a tune's devices in place of the options' own when it names some), the
// device it describes, and its time_cublas() as the reference timer.
template <typename Evaluator>
auto make_gemm_evaluator(GemmEvaluatorOptions options) {
  return [options = std::move(options)](const Problem& problem, const std::vector<int>& devices) {
    GemmEvaluatorOptions measure = options;
    if (!devices.empty()) measure.devices = devices;
    auto evaluator = std::make_unique<Evaluator>(problem, measure);
    FamilyEvaluator made{nullptr, evaluator->device(), {}};
    made.time_reference = [timed = evaluator.get()] { return timed->time_cublas(); };
    made.evaluator = std::move(evaluator);
    return made;
  };
}

// A GEMM's floating-point operations, 2 m n k, for Family::flop_count.
template <typename Shape>
double gemm_flops(const Shape& shape) {
  return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
         static_cast<double>(shape.k);
}

// Name "gemm", version the kernel source's hash (gemm_source_version), the space of
// make_gemm_space() (built once, kept for the program's life), problems resolved by
// resolve_gemm_problem, evaluators GemmEvaluator(problem, options) with cuBLASLt as the reference.
// Throws std::runtime_error when the kernel source cannot be read.
Family gemm_tuning_family(GemmEvaluatorOptions options = {});

namespace families {
Family gemm();  // the table's entry: gemm_tuning_family() with the default options
}

}  // namespace cutune
