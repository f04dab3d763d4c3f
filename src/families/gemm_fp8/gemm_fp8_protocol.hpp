// The fp8 GEMM family's request to the device worker: the opaque `request` of a
// cuda::protocol::FamilyRequest with family "gemm_fp8", answered by its mode
// (gemm_fp8_worker_mode.cpp) with a MeasureReply. Shared by the evaluator and the worker mode.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/cuda/worker_protocol.hpp"

namespace cutune::cuda::protocol {

// One config of the fp8 family on one problem: the worker loads its library, checks D against
// the fp32 product of the dequantized operands (seeded fp8 inputs, seeded scales, output
// poisoned first), then times it like any kernel.
// A struct of its own rather than the bf16 family's GemmRequest with more fields: what the worker
// loads is a shared library (CUTLASS's kernel parameters need host code of the same
// instantiation), not a cubin; the operands are fp8 with scales, not a dtype and a B layout; and
// there are no paired rounds of this family's own. The fields both have mean the same in both.
struct Fp8Request {
  std::uint64_t id = 0;
  std::string library;  // compiled from device/hopper_gemm_fp8.cu with `config`'s defines
  std::string config;   // the family's compact name, e.g. "128x128x128_s4_c1x1_coop_rn1"
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::string scaling = "tensor";  // "tensor" | "row_col" | "block"
  std::string a_format = "e4m3";   // "e4m3" | "e5m2"
  std::string b_format = "e4m3";
  std::uint64_t seed = 1;
  double tolerance = -1;     // max normwise relative error; negative: kFp8Tolerance
  bool time = true;          // false: only check
  bool cublas_only = false;  // time cuBLASLt's fp8 GEMM with the same scales instead
  Timing timing;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Fp8Request, id, library, config, m, n, k, scaling,
                                                a_format, b_format, seed, tolerance, time,
                                                cublas_only, timing)

// The default tolerance: bf16 rounding of D (2^-9 relative) plus the fp32 sums' reassociation,
// with room for the fast-accumulation schedules, which keep about 22 mantissa bits between
// promotions (normwise, max|D - ref| / max|ref|).
inline constexpr double kFp8Tolerance = 1e-2;

inline FamilyRequest family_request(const Fp8Request& request) {
  return {"gemm_fp8", request, request.timing, request.time};
}

}  // namespace cutune::cuda::protocol
