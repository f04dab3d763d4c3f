// The fp8 GEMM family's legal knob values, limits and shared-memory estimate: the ONE definition
// that the host rules (gemm_fp8_problem.cpp) and the kernel's static_asserts
// (device/hopper_gemm_fp8.cu) both read, so that every config the space can draw is one the kernel
// compiles. Plain constexpr C++17 without headers: the tuner's compiler prepends this text to the
// kernel source (gemm_fp8_compiler.cpp), hence the classic include guard. Nothing here throws.
#ifndef CUTUNE_GEMM_FP8_RULES_HPP
#define CUTUNE_GEMM_FP8_RULES_HPP

namespace cutune::gemm_fp8::rules {

// Tile extents along D's rows (tile_m) and columns (tile_n). The MMA's M side, which wgmma takes
// in 64-row steps per warpgroup, is tile_m, or tile_n with the operands swapped (knob "swap_ab");
// its N side takes any multiple of 8, so with the operands swapped a decoding tile holds as few as
// 8 rows of D (the tokens) against 64 columns of weights. cuBLASLt's 128x160 and 144x128 (swapped)
// tiles are not values here: built from CUTLASS's collectives they ran at 0.4-0.75 of
// torch._scaled_mm on every shape of the table (docs/perf.md).
inline constexpr int kTileM[] = {8, 16, 32, 64, 128, 256};
inline constexpr int kTileN[] = {64, 128, 192, 256};
inline constexpr int kMmaM[] = {64, 128, 256};
// fp8 wgmma consumes k in steps of 32; a 128-deep k-block is one 128-byte swizzle row of fp8 and
// one scale block of the block-scaled mode.
inline constexpr int kTileK[] = {128};
inline constexpr int kClusterExtent[] = {1, 2};
inline constexpr int kMinStages = 2;
// Swapped decoding tiles (8 rows of A beside 64 of B) take 9 KiB a stage: 16 keep 144 KiB of
// weights in flight, as cuBLASLt's decoding kernels do.
inline constexpr int kMaxStages = 16;
// CUTLASS's persistent scheduler takes swizzle widths that are powers of two up to 8.
inline constexpr int kSwizzle[] = {1, 2, 4, 8};
// k-blocks between promotions of the tensor core's partial sums to the fp32 total (knob
// "promotion", the accurate schedules under tensor and row x column scales): each promotion
// drains the warpgroup's MMAs, so a longer interval trades some of deep K's accuracy for speed.
// Block scaling scales every k-block and the fast-accumulation schedules never promote: 1 there.
inline constexpr int kPromotion[] = {1, 2, 4};
// The k-steps of one fp8 wgmma: CUTLASS counts the promotion interval in these.
inline constexpr int kMmaK = 32;

// Scaling modes (problem field "scaling"): D = bf16(sum_k A*B * scales).
inline constexpr int kScalingTensor = 0;  // one scale_a and one scale_b
inline constexpr int kScalingRowCol = 1;  // scale_a[m] per row of A, scale_b[n] per column of B
inline constexpr int kScalingBlock = 2;   // DeepSeek-V3: A per 1x128, B per 128x128 block
inline constexpr int kScaleBlock = 128;   // the block edge of kScalingBlock (k, and n for B)

// Operand formats (problem fields "a_format" and "b_format"), OCP FP8: e4m3 (3 mantissa bits, up
// to 448), the inference format, and e5m2 (2 bits, up to 57344), the gradients' range; fp8 wgmma
// takes either on either side.
inline constexpr int kFormatE4M3 = 0;
inline constexpr int kFormatE5M2 = 1;

// Kernel schedules (knob "schedule"): the fast-accumulation ones accumulate in the tensor core's
// own reduced-precision fp32 and never promote, so the block-scaled mode, which scales each
// k-block's partial sums, takes only the first two.
inline constexpr int kCooperative = 0;
inline constexpr int kPingpong = 1;
inline constexpr int kCooperativeFastAccum = 2;
inline constexpr int kPingpongFastAccum = 3;

// Knob "swap_ab": 1 computes D^T = B * A^T, B's rows on the MMA's M side and A's (D's rows) on its
// N side, D written column-major as D^T: a tile as short as a decoding batch. Not under block
// scaling, whose scale blocks are laid out for A and B in their own roles.
inline constexpr int kSwapAB[] = {0, 1};

// Knob "stream_k": 1 runs CUTLASS's stream-K scheduler, which where the output tiles fill the last
// wave poorly (136 tiles on 132 SMs) or not at all (17 tiles) gives every CTA an equal share of
// all tiles' k-blocks, the CTAs that share a tile adding their fp32 partial sums through a
// workspace; it runs the cooperative schedules only.
inline constexpr int kStreamK[] = {0, 1};

// The tile's extents on the MMA's M and N sides.
constexpr int mma_m(int tile_m, int tile_n, int swap_ab) { return swap_ab ? tile_n : tile_m; }
constexpr int mma_n(int tile_m, int tile_n, int swap_ab) { return swap_ab ? tile_m : tile_n; }

constexpr bool is_pingpong(int schedule) {
  return schedule == kPingpong || schedule == kPingpongFastAccum;
}
constexpr bool is_fast_accum(int schedule) {
  return schedule == kCooperativeFastAccum || schedule == kPingpongFastAccum;
}
// The deepest K the tuner draws a fast-accumulation schedule for: its error against the fp32
// product grows with K, and on normal data quantized to e4m3 (the worker's inputs and the peer
// table's alike) cuBLASLt's own fast mode, the same tensor-core accumulation, reaches the family's
// 1e-2 tolerance past it (up to 9.6e-3 at K = 8192, 1.1e-2 at 14336, 1.7e-2 at 28672). The error is
// a maximum over D, so near the tolerance one draw of the data passes a config that another fails.
// A config given by hand may still ask for it.
inline constexpr int kFastAccumMaxK = 8192;

// Whether knob "promotion" may be other than one k-block: a schedule that promotes under tensor or
// row x column scales (block scaling scales every k-block; fast accumulation never promotes).
constexpr bool takes_promotion(int schedule, int scaling) {
  return scaling != kScalingBlock && !is_fast_accum(schedule);
}

// The opt-in shared memory limit of one block on sm_90 (227 KiB).
inline constexpr int kSharedMemoryPerBlock = 232448;
// What the epilogue takes at most beside the mainloop's stages: bf16 D staged through shared
// memory for its TMA store (two 128x32 subtiles per warpgroup pair) with the pipeline's barriers,
// rounded up; the row and column scales travel in registers, not shared memory.
inline constexpr int kEpilogueBytes = 32 * 1024;
// fp32 accumulators one consumer thread may hold (the block-scaled mode holds a second set for
// the k-block being promoted, counted in accumulators_per_thread).
inline constexpr int kMaxAccumulatorsPerThread = 128;
inline constexpr int kBlockScaledMaxAccumulators = 192;

template <int N>
constexpr bool one_of(int value, const int (&legal)[N]) {
  for (int candidate : legal) {
    if (candidate == value) return true;
  }
  return false;
}

// One stage of the mainloop: the fp8 tiles of A and B (one byte an element), its two barriers,
// and with block scaling the tile's scales of A (tile_m floats) and of B (one per 128 columns),
// each buffer rounded up to 128 bytes.
constexpr int stage_bytes(int tile_m, int tile_n, int tile_k, int scaling) {
  const int scales = scaling == kScalingBlock ? 4 * (tile_m + tile_n / kScaleBlock) + 256 : 0;
  return (tile_m + tile_n) * tile_k + 16 + scales;
}

constexpr int shared_bytes(int tile_m, int tile_n, int tile_k, int stages, int scaling) {
  return stages * stage_bytes(tile_m, tile_n, tile_k, scaling) + kEpilogueBytes;
}

// The most stages that fit the shared memory limit, or 0 when not even kMinStages do.
constexpr int deepest_stages(int tile_m, int tile_n, int tile_k, int scaling, int limit) {
  for (int stages = kMaxStages; stages >= kMinStages; --stages) {
    if (shared_bytes(tile_m, tile_n, tile_k, stages, scaling) <= limit) return stages;
  }
  return 0;
}

// fp32 values per consumer thread: a warpgroup's 128 threads hold its share of the tile's results
// (half the MMA's M side in the cooperative schedule, all of it in ping-pong: half the tile either
// way the operands go), twice with block scaling.
constexpr int accumulators_per_thread(int tile_m, int tile_n, int schedule, int scaling) {
  const int one = tile_m * tile_n / (is_pingpong(schedule) ? 128 : 256);
  return scaling == kScalingBlock ? 2 * one : one;
}

constexpr int max_accumulators(int scaling) {
  return scaling == kScalingBlock ? kBlockScaledMaxAccumulators : kMaxAccumulatorsPerThread;
}

}  // namespace cutune::gemm_fp8::rules

#endif  // CUTUNE_GEMM_FP8_RULES_HPP
