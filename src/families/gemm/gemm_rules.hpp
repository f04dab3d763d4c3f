// The Hopper GEMM family's legal knob values, limits and shared-memory formula: the ONE definition
// that the host rules (gemm_problem.cpp: violations(), shared_memory_bytes()) and the kernel's
// static_asserts (device/hopper_gemm.cu) both read, so that every config the space can draw is
// one the kernel compiles and fits. Plain constexpr C++17, no headers: nvcc compiles it inside
// the kernel source, which the tuner's compiler ships with this file's text prepended
// (gemm_evaluator.cpp), hence the classic include guard rather than #pragma once.
// Nothing here throws; any code may call it.
#ifndef CUTUNE_GEMM_RULES_HPP
#define CUTUNE_GEMM_RULES_HPP

namespace cutune::gemm::rules {

inline constexpr int kTileM[] = {64, 128, 256};
inline constexpr int kTileN[] = {64, 128, 192, 256};
inline constexpr int kTileK[] = {32, 64, 128};
inline constexpr int kClusterExtent[] = {1, 2};  // cluster_m and cluster_n
inline constexpr int kMinStages = 2;
inline constexpr int kMaxStages = 16;
inline constexpr int kMinSwizzle = 1;
inline constexpr int kMaxSwizzle = 16;
inline constexpr int kMinSplitK = 1;
inline constexpr int kMaxSplitK = 8;

// The opt-in shared memory limit of one block on sm_90 (227 KiB).
inline constexpr int kSharedMemoryPerBlock = 232448;
// Threads per block: one producer warpgroup and two consumer warpgroups.
inline constexpr int kThreadsPerBlock = 384;
inline constexpr int kConsumerWarps = 8;
// Most fp32 accumulators one consumer thread may hold and still leave room for addressing within
// the consumer's register budget (232 after setmaxnreg) without spilling.
inline constexpr int kMaxAccumulatorsPerThread = 192;

inline constexpr int kElementBytes = 2;  // bf16 and fp16
inline constexpr int kSwizzleAtomBytes = 1024;
inline constexpr int kBarrierBytes = 8;
// The epilogue stages each consumer warp's results as boxes of 16 rows x 64 columns (128-byte
// swizzle) that one TMA store writes to D.
inline constexpr int kEpilogueBoxRows = 16;
inline constexpr int kEpilogueBoxBytes = kEpilogueBoxRows * 64 * kElementBytes;

template <int N>
constexpr bool one_of(int value, const int (&legal)[N]) {
  for (int candidate : legal) {
    if (candidate == value) return true;
  }
  return false;
}

// The stages, a "full" and an "empty" barrier per stage, and slack to align the first stage to
// the swizzle atom.
constexpr int pipeline_bytes(int tile_m, int tile_n, int tile_k, int stages) {
  return kSwizzleAtomBytes +
         stages * ((tile_m + tile_n) * tile_k * kElementBytes + 2 * kBarrierBytes);
}

// Staging boxes per consumer warp: two (double-buffered) when they fit beside the stages, else
// one; 0 with split-K, whose fp32 slices go straight from registers to the workspace. A config
// with split_k == 1 that cannot fit one box per warp is illegal (see shared_bytes).
constexpr int epilogue_buffers(int tile_m, int tile_n, int tile_k, int stages, int split_k) {
  if (split_k > 1) return 0;
  const int base = pipeline_bytes(tile_m, tile_n, tile_k, stages);
  return base + 2 * kConsumerWarps * kEpilogueBoxBytes <= kSharedMemoryPerBlock ? 2 : 1;
}

// Dynamic shared memory the kernel needs and traps without.
constexpr int shared_bytes(int tile_m, int tile_n, int tile_k, int stages, int split_k) {
  return pipeline_bytes(tile_m, tile_n, tile_k, stages) +
         epilogue_buffers(tile_m, tile_n, tile_k, stages, split_k) * kConsumerWarps *
             kEpilogueBoxBytes;
}

// The fast-launch mode (programmatic dependent launch) is gated to the kind of config its seed
// proposes: the cooperative schedule in a cluster of at most two CTAs along M, without split-K
// (whose reduction is a second launch the next kernel would have to wait for).
constexpr bool fast_launch_allowed(int cluster_m, int cluster_n, bool pingpong, int split_k) {
  return cluster_m <= 2 && cluster_n == 1 && !pingpong && split_k == 1;
}

// fp32 accumulators per consumer thread: a warpgroup's 128 threads hold its rows x tile_n results
// (half the tile's rows in the cooperative schedule, all of them in ping-pong).
constexpr int accumulators_per_thread(int tile_m, int tile_n, bool pingpong) {
  return (pingpong ? tile_m : tile_m / 2) * tile_n / 128;
}

}  // namespace cutune::gemm::rules

#endif  // CUTUNE_GEMM_RULES_HPP
