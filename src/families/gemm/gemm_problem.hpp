// The Hopper GEMM family's problem and configuration, and the rules that decide whether a
// configuration can run a problem at all. Plain C++17 with no CUDA headers (nvcc reads it too):
// the config space uses these rules as constraints, the launcher uses them for its launch
// geometry, and the kernel source (device/hopper_gemm.cu) receives a configuration as the -D
// macros that compile_defines() writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gemm/gemm_rules.hpp"

namespace cutune::gemm {

enum class DType { bf16 = 0, fp16 = 1 };

// How B is stored. A is always M x K row-major and D is M x N row-major.
enum class BLayout {
  k_by_n = 0,  // B is K x N row-major (x @ W)
  n_by_k = 1,  // B is N x K row-major (x @ W.T)
};

enum class Schedule {
  cooperative = 0,  // both consumer warpgroups share one tile, split along M
  pingpong =
      1,  // the consumer warpgroups take alternate tiles, one's epilogue under the other's MMA
};

// How a tune times each candidate: `flushed` overwrites the L2 before every launch (a call whose
// operands are cold); `back_to_back` launches without a flush between, as a decoding model calls
// its skinny GEMMs, whose weights may then still be in L2. Not part of the kernel: it picks which
// config wins, so it is part of the problem, hence of the store key.
enum class Timing { flushed = 0, back_to_back = 1 };

// The direction in which consecutive tiles of the persistent schedule advance.
enum class Raster { along_m = 0, along_n = 1 };

struct GemmProblem {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  DType dtype = DType::bf16;
  BLayout b_layout = BLayout::k_by_n;
  Timing timing = Timing::flushed;
};

struct GemmConfig {
  int tile_m = 128;
  int tile_n = 256;
  int tile_k = 64;
  int stages = 4;
  int cluster_m = 2;  // CTAs of a cluster along M share (multicast) the B tile
  int cluster_n = 1;  // CTAs of a cluster along N share (multicast) the A tile
  Schedule schedule = Schedule::cooperative;
  Raster raster = Raster::along_n;
  int swizzle = 8;  // tiles per raster group, for L2 reuse
  int split_k = 1;  // K slices reduced through an fp32 workspace
  // Programmatic dependent launch: the next kernel's prologue overlaps this one's tail. A seed-only
  // mode, legal only where rules::fast_launch_allowed holds (cooperative, clusters of at most 2x1,
  // no split-K).
  bool fast_launch = false;
};

// The limits of gemm_rules.hpp, under the names the host code has always used.
inline constexpr int kSm90SharedMemoryPerBlock = rules::kSharedMemoryPerBlock;
inline constexpr int kThreadsPerBlock = rules::kThreadsPerBlock;
inline constexpr int kMaxAccumulatorsPerThread = rules::kMaxAccumulatorsPerThread;

// Dynamic shared memory the kernel needs: the pipeline stages, their barriers, slack to align the
// first stage to the 1024-byte swizzle atom, and the epilogue's staging boxes
// (rules::shared_bytes, which the kernel's static_asserts read too).
int shared_memory_bytes(const GemmConfig& config);

// Epilogue staging boxes (16 x 64 elements) per consumer warp: 2, 1, or 0 with split-K (whose
// fp32 slices bypass shared memory). Whether D gets a tensor map follows from it.
int epilogue_buffers(const GemmConfig& config);

// fp32 accumulators one consumer thread holds.
int accumulators_per_thread(const GemmConfig& config);

// Every reason why `config` cannot run `problem` with `shared_memory_per_block` bytes of shared
// memory, each naming the knob or dimension and its value; empty when it can.
std::vector<std::string> violations(const GemmConfig& config, const GemmProblem& problem,
                                    int shared_memory_per_block = kSm90SharedMemoryPerBlock);

bool fits(const GemmConfig& config, const GemmProblem& problem,
          int shared_memory_per_block = kSm90SharedMemoryPerBlock);

// The names problems and the worker's requests give the dtype and B's layout: "bf16", "fp16";
// "k_by_n", "n_by_k".
std::string to_string(DType dtype);
std::string to_string(BLayout layout);
// "flushed", "back_to_back"; parse_timing throws std::invalid_argument "gemm problem timing '...'
// is not flushed or back_to_back".
std::string to_string(Timing timing);
Timing parse_timing(const std::string& name);
// The dtype or layout `name` names. Throws std::invalid_argument "gemm problem dtype 'fp8' is not
// bf16 or fp16" ("gemm problem b_layout '...' is not k_by_n or n_by_k").
DType parse_dtype(const std::string& name);
BLayout parse_b_layout(const std::string& name);

// Violations as one line for a message: "a; b; c".
std::string joined(const std::vector<std::string>& violations);

// Bytes of fp32 workspace that split-K needs (0 without split-K).
std::size_t workspace_bytes(const GemmConfig& config, const GemmProblem& problem);

// a / b rounded up: tiles of `b` that cover `a`.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Output tiles times K slices: the work units the persistent schedule hands to clusters.
int work_units(const GemmConfig& config, const GemmProblem& problem);

// "NAME=value", one -D definition of a kernel source.
inline std::string compile_define(const char* name, int value) {
  return std::string(name) + "=" + std::to_string(value);
}

// The -D definitions of the knobs that every Hopper GEMM family's kernel reads alike (tile,
// stages, cluster, schedule, raster, swizzle), for a config that has them (GemmConfig,
// gemm_fp8::Fp8Config); each family's compile_defines appends its own after them.
template <typename TileConfig>
std::vector<std::string> tile_defines(const TileConfig& config) {
  return {compile_define("CUTUNE_TILE_M", config.tile_m),
          compile_define("CUTUNE_TILE_N", config.tile_n),
          compile_define("CUTUNE_TILE_K", config.tile_k),
          compile_define("CUTUNE_STAGES", config.stages),
          compile_define("CUTUNE_CLUSTER_M", config.cluster_m),
          compile_define("CUTUNE_CLUSTER_N", config.cluster_n),
          compile_define("CUTUNE_SCHEDULE", static_cast<int>(config.schedule)),
          compile_define("CUTUNE_RASTER", static_cast<int>(config.raster)),
          compile_define("CUTUNE_SWIZZLE", config.swizzle)};
}

// The -D definitions ("CUTUNE_TILE_M=128", ...) that select `config` in device/hopper_gemm.cu.
std::vector<std::string> compile_defines(const GemmConfig& config, DType dtype, BLayout b_layout);

// A compact, stable name such as "128x256x64_s4_c2x1_coop_rn8_k1" ("_pdl" appended with
// fast_launch), read back by parse_config.
std::string to_string(const GemmConfig& config);

// The configuration that to_string() wrote as `name`. Throws std::invalid_argument naming the part
// of `name` that does not parse. Knob values are not checked here: see violations().
GemmConfig parse_config(const std::string& name);

}  // namespace cutune::gemm
