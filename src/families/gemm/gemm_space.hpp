// The config space of the Hopper GEMM family (device/hopper_gemm.cu): its knobs, the constraints
// that keep a candidate runnable (the rules of gemm_problem.hpp), and its heuristic seeds.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cutune/heuristics.hpp"
#include "gemm/gemm_problem.hpp"

namespace cutune {

// Knobs: tile_m, tile_n, tile_k, stages, cluster_m, cluster_n, schedule ("cooperative" |
// "pingpong"), raster ("along_m" | "along_n"), swizzle, split_k, fast_launch (seed-only true).
// Problems: m, n, k, dtype ("bf16" | "fp16"), optionally b_layout ("k_by_n" | "n_by_k") and timing
// ("flushed", the default | "back_to_back": how the tune times candidates, gemm::Timing).
std::unique_ptr<TuningSpace> make_gemm_space();

Problem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::string dtype = "bf16");

// Conversions to the kernel's own types. A missing problem argument throws std::out_of_range and an
// unsupported one std::invalid_argument, each naming it; a Config of another space throws
// ConfigError naming the missing knob.
// The problem with the family's defaults filled in (dtype bf16): what a tune and the runtime key
// results by (timing=flushed and b_layout=k_by_n dropped: they are the defaults). Throws
// std::invalid_argument naming what the kernel cannot run (a missing or unsupported argument, k or
// n not a multiple of 8).
Problem resolve_gemm_problem(const Problem& problem);

// Why a family's kernel cannot run a problem at all (TuningSpace::problem_errors).
using ProblemErrors = std::function<std::vector<std::string>(const Problem&, const Device&)>;
// The resolve of the GEMM families: `field` set to `fallback` where the problem lacks it, and
// timing=flushed and each of `unnamed` (field, its default) dropped where named, so that a problem
// keys alike with its defaults named or not; then checked by `errors`. Throws
// std::invalid_argument "FAMILY problem CANONICAL: REASONS".
using UnnamedDefaults = std::vector<std::pair<std::string, std::string>>;
Problem resolve_gemm_family_problem(const Problem& problem, const std::string& family,
                                    const std::string& field, const std::string& fallback,
                                    const UnnamedDefaults& unnamed, const ProblemErrors& errors);
gemm::GemmProblem to_gemm_problem(const Problem& problem);
gemm::GemmConfig to_gemm_config(const Config& config);

}  // namespace cutune
