// The config space of the fp8 GEMM family (device/hopper_gemm_fp8.cu): its knobs, the constraints
// that keep a candidate compilable and runnable (gemm_fp8_problem.hpp's rules), and its seeds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cutune/heuristics.hpp"
#include "gemm_fp8/gemm_fp8_problem.hpp"

namespace cutune {

// Knobs: tile_m, tile_n, tile_k, stages, cluster_m, cluster_n, schedule ("cooperative" |
// "pingpong" | "cooperative_fast_accum" | "pingpong_fast_accum"), raster ("along_m" | "along_n"),
// swizzle (1, 2, 4, 8). Problems: m, n, k, scaling ("tensor", the default | "row_col" | "block"),
// optionally timing ("flushed", the default | "back_to_back") and the operands' formats a_format
// and b_format ("e4m3", the default | "e5m2").
std::unique_ptr<TuningSpace> make_gemm_fp8_space();

// The formats are named only where not e4m3.
Problem gemm_fp8_problem(std::int64_t m, std::int64_t n, std::int64_t k,
                         std::string scaling = "tensor", const std::string& a_format = "e4m3",
                         const std::string& b_format = "e4m3");

// The problem with the family's defaults filled in (scaling tensor; timing=flushed and the e4m3
// formats dropped), as the store keys it. Throws std::invalid_argument naming what the kernel
// cannot run (a missing or unsupported argument, a misaligned dimension).
Problem resolve_gemm_fp8_problem(const Problem& problem);
// Conversions to the kernel's types: a missing argument throws std::out_of_range, an unsupported
// one std::invalid_argument, each naming it; a Config of another space throws ConfigError.
gemm_fp8::Fp8Problem to_fp8_problem(const Problem& problem);
gemm_fp8::Fp8Config to_fp8_config(const Config& config);

}  // namespace cutune
