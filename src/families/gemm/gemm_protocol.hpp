// The GEMM family's own request to the device worker: the opaque `request` of a
// cuda::protocol::FamilyRequest with family "gemm" (worker_protocol.hpp), answered by the GEMM
// mode (gemm_worker_mode.cpp) with a MeasureReply. Shared by the evaluator and the worker mode.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cutune/cuda/worker_protocol.hpp"

namespace cutune::cuda::protocol {

// One candidate of a GEMM paired-rounds request.
struct GemmCandidate {
  std::string cubin;
  std::string config;
};

// A configuration of the built-in Hopper GEMM family on one problem. The worker
// builds the family's tensor maps and launch itself, checks D = A * B against cuBLASLt in the same
// process (seeded random non-zero inputs, output poisoned first), then times it like any kernel.
struct GemmRequest {
  std::uint64_t id = 0;
  std::string cubin;   // compiled from device/hopper_gemm.cu with `config`'s defines
  std::string config;  // the family's compact name, e.g. "128x256x64_s4_c2x1_coop_rn8_k1"
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::string dtype = "bf16";       // "bf16" | "fp16"
  std::string b_layout = "k_by_n";  // "k_by_n" | "n_by_k"
  std::uint64_t seed = 1;           // input values; the same seed gives the same inputs
  double tolerance = -1;            // max relative error; negative: the default for the dtype
  bool time = true;                 // false: only check correctness
  bool cublas_only = false;         // time cuBLASLt on the problem instead (cubin, config unused)
  Timing timing;
  // rounds > 0: paired rounds of `candidates` and cuBLASLt instead (cubin, config unused): each
  // checked, untimed rounds until cuBLASLt's time and the SM clock settle, then `rounds` rounds
  // timing each `reps` times from a flushed L2 in an order rotated from round to round.
  std::vector<GemmCandidate> candidates;
  int rounds = 0;
  int reps = 5;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GemmCandidate, cubin, config)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GemmRequest, id, cubin, config, m, n, k, dtype,
                                                b_layout, seed, tolerance, time, cublas_only,
                                                timing, candidates, rounds, reps)

// The request as the generic protocol carries it.
inline FamilyRequest family_request(const GemmRequest& request) {
  return {"gemm", request, request.timing, request.time};
}

}  // namespace cutune::cuda::protocol
