// The fp8 GEMM family's problem and configuration, and the rules that decide whether a
// configuration can run a problem at all. Plain C++17 with no CUDA headers: the space uses these
// rules as constraints, the launcher checks them, and the kernel source
// (device/hopper_gemm_fp8.cu) receives a configuration as the -D macros compile_defines() writes.
// Parsers throw std::invalid_argument naming the field and its legal values; the rest throws
// nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm/gemm_problem.hpp"
#include "gemm_fp8/gemm_fp8_rules.hpp"

namespace cutune::gemm_fp8 {

// How D's fp32 sums are scaled (gemm_fp8_abi.hpp says where each scale lives).
enum class Scaling {
  tensor = rules::kScalingTensor,   // scale_a * scale_b, two scalars
  row_col = rules::kScalingRowCol,  // scale_a[row] * scale_b[column]
  block = rules::kScalingBlock,     // DeepSeek-V3: A per 1x128, B per 128x128 block
};

// The format of an operand's bytes (rules::kFormatE4M3).
enum class Format {
  e4m3 = rules::kFormatE4M3,
  e5m2 = rules::kFormatE5M2,
};

enum class Schedule {
  cooperative = rules::kCooperative,
  pingpong = rules::kPingpong,
  cooperative_fast_accum = rules::kCooperativeFastAccum,
  pingpong_fast_accum = rules::kPingpongFastAccum,
};

// A m x k row-major, B n x k row-major (K-major), each e4m3 or e5m2, D bf16 m x n row-major.
// Timing as the bf16 family's (gemm::Timing): part of the problem, hence of the store key.
struct Fp8Problem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  Scaling scaling = Scaling::tensor;
  gemm::Timing timing = gemm::Timing::flushed;
  Format a_format = Format::e4m3;
  Format b_format = Format::e4m3;
};

// What of a problem a compiled library depends on: the scales' layout and the operands' formats.
struct LibraryKind {
  Scaling scaling = Scaling::tensor;
  Format a_format = Format::e4m3;
  Format b_format = Format::e4m3;

  explicit LibraryKind(const Fp8Problem& problem)
      : scaling(problem.scaling), a_format(problem.a_format), b_format(problem.b_format) {}
  LibraryKind() = default;
  bool operator<(const LibraryKind& other) const;
};

struct Fp8Config {
  int tile_m = 128;
  int tile_n = 128;
  int tile_k = 128;
  int stages = 4;
  int cluster_m = 1;
  int cluster_n = 1;
  Schedule schedule = Schedule::cooperative;
  gemm::Raster raster = gemm::Raster::along_n;
  int swizzle = 1;
  int promotion = 1;  // k-blocks between promotions to fp32 (rules::kPromotion)
  // B on the MMA's M side, A (D's rows) on its N side (rules::kSwapAB). The tile, cluster and
  // raster knobs keep naming D's rows and columns either way.
  bool swap_ab = false;
  bool stream_k = false;  // the stream-K scheduler (rules::kStreamK)
};

int shared_memory_bytes(const Fp8Config& config, Scaling scaling);
// fp32 accumulators per consumer thread, and the most it may hold without spilling. Every schedule
// that promotes (all but the fast-accumulation ones, and every schedule under block scaling) keeps
// a second set: CUTLASS's fp8 mainloop sums a k-block's products apart from the running total.
int accumulators_per_thread(const Fp8Config& config, Scaling scaling);
int max_accumulators(const Fp8Config& config, Scaling scaling);

// Whether the promotion interval may be other than one k-block (rules::takes_promotion, the rule
// the kernel's static_assert reads too).
bool promotion_is_a_knob(Schedule schedule, Scaling scaling);

// Every reason why `config` cannot run `problem`, each naming the knob or dimension, its value and
// what is legal; empty when it can.
std::vector<std::string> violations(const Fp8Config& config, const Fp8Problem& problem,
                                    int shared_memory_per_block = rules::kSharedMemoryPerBlock);

// "tensor", "row_col", "block"; parse_scaling throws std::invalid_argument "gemm_fp8 problem
// scaling 'x' is not tensor, row_col or block".
std::string to_string(Scaling scaling);
Scaling parse_scaling(const std::string& name);
// "cooperative", "pingpong", "cooperative_fast_accum", "pingpong_fast_accum"; parse_schedule throws
// std::invalid_argument naming the four.
std::string to_string(Schedule schedule);
Schedule parse_schedule(const std::string& name);
// "e4m3", "e5m2"; parse_format throws std::invalid_argument "gemm_fp8 problem FIELD 'x' is not
// e4m3 or e5m2", FIELD naming the problem field read.
std::string to_string(Format format);
Format parse_format(const std::string& name, const std::string& field);

// The -D definitions ("CUTUNE_TILE_M=128", ...) that select `config` and the library's kind in
// device/hopper_gemm_fp8.cu.
std::vector<std::string> compile_defines(const Fp8Config& config, const LibraryKind& kind);

// A compact, stable name such as "128x128x128_s4_c1x1_coop_rn1" ("coopfa", "ping", "pingfa"),
// with "_p2" appended for a promotion interval other than one k-block, then "_swap" for swapped
// operands and "_sk" for the stream-K scheduler, read back by parse_config,
// which throws std::invalid_argument naming the part that does not parse. Knob values are not
// checked there: see violations().
std::string to_string(const Fp8Config& config);
Fp8Config parse_config(const std::string& name);

}  // namespace cutune::gemm_fp8
