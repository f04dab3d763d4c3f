// Hopper (sm_90a) fp8 GEMM: D = bf16(A * B^T, scaled) with A (m x k) and B (n x k) each e4m3 or
// e5m2 (CUTUNE_A_FORMAT, CUTUNE_B_FORMAT), both K-major ("TN", the only layout fp8 wgmma reads from
// shared memory without a transpose), fp32 accumulation, D m x n bf16 row-major. Three scaling
// modes (CUTUNE_SCALING, gemm_fp8_rules.hpp): per tensor and per row x column are epilogue visitors
// over the accumulator; block scaling is CUTLASS's blockwise mainloop, which multiplies each
// 128-deep k-block's partial sums by their scales as it adds them into the fp32 accumulator. With
// CUTUNE_SWAP_AB the kernel computes D^T = B * A^T instead (B on the MMA's M side, D^T stored
// column-major, which is D row-major): a decoding batch of a few rows then fills the MMA's N side,
// which takes multiples of 8, rather than its M side, which takes multiples of 64. With
// CUTUNE_STREAM_K the persistent CTAs share out the k-blocks of all tiles (CUTLASS's stream-K
// scheduler, its heuristic decomposition), so that a grid a few tiles past a wave, or short of one,
// keeps every SM busy to the end.
//
// Built from CUTLASS 4.2's sm90 collective builders. A CUTLASS kernel's parameters (TMA
// descriptors, scheduler state) come from host code instantiated for the same config, so this
// file is compiled to a shared library per config, and exports gemm_fp8_abi.hpp's C functions.
// Every knob arrives as a -D macro (gemm_fp8_problem.cpp, compile_defines()); legal values come
// from gemm_fp8_rules.hpp, which the tuner's compiler prepends along with gemm_fp8_abi.hpp.

#include <cuda_runtime.h>
#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm_universal_adapter.h>

#include <cstdio>
#include <cute/tensor.hpp>
#include <cutlass/detail/blockwise_scale_layout.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/operations.hpp>
#include <cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#ifndef CUTUNE_GEMM_FP8_RULES_HPP
#include "../gemm_fp8_rules.hpp"
#endif
#ifndef CUTUNE_GEMM_FP8_ABI_HPP
#include "../gemm_fp8_abi.hpp"
#endif

// Without the tuner's defines, the family's plain config (gemm_fp8_problem.hpp's Fp8Config{}),
// so that the file compiles on its own; the tuner defines every knob.
#if !defined(CUTUNE_TILE_M)
#define CUTUNE_TILE_M 128
#define CUTUNE_TILE_N 128
#define CUTUNE_TILE_K 128
#define CUTUNE_STAGES 4
#define CUTUNE_CLUSTER_M 1
#define CUTUNE_CLUSTER_N 1
#define CUTUNE_SCHEDULE 0
#define CUTUNE_RASTER 1
#define CUTUNE_SWIZZLE 1
#define CUTUNE_SCALING 0
#define CUTUNE_PROMOTION 1
#define CUTUNE_SWAP_AB 0
#define CUTUNE_STREAM_K 0
#define CUTUNE_A_FORMAT 0
#define CUTUNE_B_FORMAT 0
#endif

namespace {

using namespace cute;
namespace rules = cutune::gemm_fp8::rules;

// The knobs name D's rows (M) and columns (N); the kernel's own M and N are those of the product
// it computes, D or, with swapped operands, D^T.
constexpr bool kSwapAB = CUTUNE_SWAP_AB != 0;
constexpr bool kStreamK = CUTUNE_STREAM_K != 0;
constexpr int kTileM = CUTUNE_TILE_M;
constexpr int kTileN = CUTUNE_TILE_N;
constexpr int kTileK = CUTUNE_TILE_K;
constexpr int kMmaM = rules::mma_m(kTileM, kTileN, kSwapAB);
constexpr int kMmaN = rules::mma_n(kTileM, kTileN, kSwapAB);
// The CTA's tile and the thread-block cluster in the kernel's M, N (and K).
using TileShape = Shape<Int<kMmaM>, Int<kMmaN>, Int<kTileK>>;
using ClusterShape =
    std::conditional_t<kSwapAB, Shape<Int<CUTUNE_CLUSTER_N>, Int<CUTUNE_CLUSTER_M>, _1>,
                       Shape<Int<CUTUNE_CLUSTER_M>, Int<CUTUNE_CLUSTER_N>, _1>>;
constexpr int kStages = CUTUNE_STAGES;
// What the schedule and the scaling select below.
constexpr int kSchedule = CUTUNE_SCHEDULE;
constexpr int kScaling = CUTUNE_SCALING;
constexpr bool kPingpong = rules::is_pingpong(kSchedule);
constexpr int kPromotion = CUTUNE_PROMOTION;
// CUTLASS's fp8 mainloop, whose arguments carry the promotion interval.
constexpr bool kPromotionKnob = rules::takes_promotion(kSchedule, kScaling);

// Every knob within gemm_fp8_rules.hpp's legal values (the host's violations() names which).
static_assert(rules::one_of(kTileM, rules::kTileM) && rules::one_of(kTileN, rules::kTileN) &&
                  rules::one_of(kTileK, rules::kTileK) && rules::one_of(kMmaM, rules::kMmaM) &&
                  rules::one_of(CUTUNE_SWIZZLE, rules::kSwizzle) &&
                  rules::one_of(CUTUNE_SWAP_AB, rules::kSwapAB) &&
                  rules::one_of(CUTUNE_STREAM_K, rules::kStreamK) &&
                  rules::one_of(CUTUNE_CLUSTER_M, rules::kClusterExtent) &&
                  rules::one_of(CUTUNE_CLUSTER_N, rules::kClusterExtent) &&
                  kStages >= rules::kMinStages && kStages <= rules::kMaxStages,
              "CUTUNE_TILE_*, _SWIZZLE, _CLUSTER_*, _STAGES: see gemm_fp8_rules.hpp");
static_assert(kSchedule >= rules::kCooperative && kSchedule <= rules::kPingpongFastAccum,
              "CUTUNE_SCHEDULE");
static_assert(kScaling >= rules::kScalingTensor && kScaling <= rules::kScalingBlock,
              "CUTUNE_SCALING");
static_assert(
    kPingpong || kMmaM >= 128,
    "the cooperative schedule needs the MMA's M side (CUTUNE_TILE_M, or _N swapped) >= 128");
static_assert(!kSwapAB || kScaling != rules::kScalingBlock, "block scaling: no CUTUNE_SWAP_AB");
static_assert(!kStreamK || !kPingpong, "CUTUNE_STREAM_K runs the cooperative schedules only");
static_assert(kScaling != rules::kScalingBlock || !rules::is_fast_accum(kSchedule),
              "block scaling promotes every k-block: no fast-accumulation schedule");
static_assert(rules::one_of(kPromotion, rules::kPromotion) && (kPromotion == 1 || kPromotionKnob),
              "CUTUNE_PROMOTION: k-blocks between promotions, a schedule that promotes only");
static_assert(kScaling != rules::kScalingBlock || kTileN % rules::kScaleBlock == 0,
              "block scaling: CUTUNE_TILE_N must be a multiple of the 128-column scale block");
static_assert(rules::shared_bytes(kTileM, kTileN, kTileK, kStages, kScaling) <=
                  rules::kSharedMemoryPerBlock,
              "stages and tiles exceed sm_90's shared memory per block");
static_assert((CUTUNE_A_FORMAT == rules::kFormatE4M3 || CUTUNE_A_FORMAT == rules::kFormatE5M2) &&
                  (CUTUNE_B_FORMAT == rules::kFormatE4M3 || CUTUNE_B_FORMAT == rules::kFormatE5M2),
              "CUTUNE_A_FORMAT, CUTUNE_B_FORMAT: see rules::kFormatE4M3");

template <int format>
using Fp8Element =
    std::conditional_t<format == rules::kFormatE5M2, cutlass::float_e5m2_t, cutlass::float_e4m3_t>;
// The kernel's A and B: the problem's, or with swapped operands B and A.
using ElementA = Fp8Element<kSwapAB ? CUTUNE_B_FORMAT : CUTUNE_A_FORMAT>;
using ElementB = Fp8Element<kSwapAB ? CUTUNE_A_FORMAT : CUTUNE_B_FORMAT>;
using ElementD = cutlass::bfloat16_t;
using LayoutA = cutlass::layout::RowMajor;     // m x k, K-major
using LayoutB = cutlass::layout::ColumnMajor;  // k x n column-major: n x k row-major, K-major
// D row-major is D^T column-major: the product the kernel computes with swapped operands.
using LayoutD =
    std::conditional_t<kSwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;
constexpr int kAlignmentAB = 16;  // elements: 16 bytes of fp8
constexpr int kAlignmentD = 8;    // 16 bytes of bf16

namespace gk = cutlass::gemm;
namespace ep = cutlass::epilogue;
namespace fu = cutlass::epilogue::fusion;

using EpilogueSchedule =
    std::conditional_t<kPingpong, ep::TmaWarpSpecialized, ep::TmaWarpSpecializedCooperative>;
using MainloopSchedule = std::conditional_t<
    kScaling == rules::kScalingBlock,
    std::conditional_t<kPingpong, gk::KernelTmaWarpSpecializedPingpongFP8BlockScaledAccum,
                       gk::KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum>,
    std::conditional_t<
        rules::is_fast_accum(kSchedule),
        std::conditional_t<kPingpong, gk::KernelTmaWarpSpecializedPingpongFP8FastAccum,
                           gk::KernelTmaWarpSpecializedCooperativeFP8FastAccum>,
        std::conditional_t<kPingpong, gk::KernelTmaWarpSpecializedPingpong,
                           gk::KernelTmaWarpSpecializedCooperative>>>;

constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;
using Multiply = fu::Sm90Compute<cutlass::multiplies, float, float, kRound>;
using MultiplyToD = fu::Sm90Compute<cutlass::multiplies, ElementD, float, kRound>;
// tensor: acc * (scale_a * scale_b), the two scalars multiplied by the broadcast itself.
using TensorScaled =
    fu::Sm90EVT<MultiplyToD, fu::Sm90ScalarBroadcast<float, Stride<_0, _0, int64_t>, 2>,
                fu::Sm90AccFetch>;
// row_col: scale_a[row] * (scale_b[column] * acc).
using RowColScaled = fu::Sm90EVT<
    MultiplyToD, fu::Sm90ColBroadcast<0, TileShape, float, float, Stride<_1, _0, int64_t>, 1>,
    fu::Sm90EVT<Multiply,
                fu::Sm90RowBroadcast<0, TileShape, float, float, Stride<_0, _1, int64_t>, 4>,
                fu::Sm90AccFetch>>;
// block: the mainloop has scaled the accumulator already.
using Unscaled =
    fu::Sm90EVT<fu::Sm90Compute<cutlass::epilogue::thread::Identity, ElementD, float, kRound>,
                fu::Sm90AccFetch>;
using Fusion = std::conditional_t<
    kScaling == rules::kScalingTensor, TensorScaled,
    std::conditional_t<kScaling == rules::kScalingRowCol, RowColScaled, Unscaled>>;

using Epilogue = typename ep::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    ep::collective::EpilogueTileAuto, float, float, void, LayoutD, kAlignmentD, ElementD, LayoutD,
    kAlignmentD, EpilogueSchedule, Fusion>::CollectiveOp;

// Block scaling: one scale per row of A and 128 k, one per 128 x 128 block of B, both stored
// M- (N-) major within a k-block, as gemm_fp8_abi.hpp states.
using ScaleConfig =
    cutlass::detail::Sm90BlockwiseScaleConfig<1, rules::kScaleBlock, rules::kScaleBlock>;
using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());
constexpr bool kBlock = kScaling == rules::kScalingBlock;
using LayoutPairA = std::conditional_t<kBlock, cute::tuple<LayoutA, LayoutSFA>, LayoutA>;
using LayoutPairB = std::conditional_t<kBlock, cute::tuple<LayoutB, LayoutSFB>, LayoutB>;

// The blockwise builder sizes its pipeline only from a shared-memory carveout: the carveout
// that leaves room for exactly kStages of its stages (tiles and scales rounded up to 128 bytes,
// plus two barriers) gives it the knob's depth.
constexpr int kCapacityBytes = rules::kSharedMemoryPerBlock;
constexpr int round_up_128(int bytes) { return (bytes + 127) / 128 * 128; }
constexpr int kBlockStageBytes =
    round_up_128((kTileM + kTileN) * kTileK + 4 * (kTileM + kTileN / rules::kScaleBlock)) + 16;
constexpr int kBlockCarveout = (kCapacityBytes - kStages * kBlockStageBytes) / 128 * 128;
static_assert(!kBlock || kBlockCarveout >= 0, "CUTUNE_STAGES: too deep for block scaling");
using StageCount =
    std::conditional_t<kBlock, gk::collective::StageCountAutoCarveout<kBlock ? kBlockCarveout : 0>,
                       gk::collective::StageCount<kStages>>;

using Mainloop = typename gk::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutPairA, kAlignmentAB,
    ElementB, LayoutPairB, kAlignmentAB, float, TileShape, ClusterShape, StageCount,
    MainloopSchedule>::CollectiveOp;
static_assert(Mainloop::DispatchPolicy::Stages == kStages, "the mainloop's depth is CUTUNE_STAGES");

using TileScheduler = std::conditional_t<kStreamK, gk::StreamKScheduler, gk::PersistentScheduler>;
using Kernel =
    gk::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, TileScheduler>;
using Gemm = gk::device::GemmUniversalAdapter<Kernel>;

// What a launch needs: the adapter (its parameters built once, at prepare), and for stream-K the
// arguments and workspace, since the counters of the CTAs sharing a tile must be zero before
// every launch.
struct Prepared {
  Gemm gemm;
  typename Gemm::Arguments arguments;
  void* workspace = nullptr;
};

// The stride of a dense rows x columns matrix, batch of one, as CUTLASS's (row, column, batch)
// stride type: row-major where the column stride is the static unit, else column-major.
template <class Stride>
Stride packed_stride(int rows, int columns) {
  Stride stride{};
  if constexpr (is_static_v<decltype(get<1>(stride))>) {
    get<0>(stride) = static_cast<int64_t>(columns);
  } else {
    get<1>(stride) = static_cast<int64_t>(rows);
  }
  get<2>(stride) = static_cast<int64_t>(rows) * columns;
  return stride;
}

// The mainloop's scales with block scaling (templates, so that only the mode's own fields are
// named in its instantiation).
template <class MainloopArguments>
void set_block_scales(MainloopArguments& mainloop, const CutuneGemmFp8Args& args) {
  if constexpr (kBlock) {
    const auto problem =
        make_shape(static_cast<int>(args.m), static_cast<int>(args.n), static_cast<int>(args.k), 1);
    mainloop.ptr_SFA = args.scale_a;
    mainloop.layout_SFA = ScaleConfig::tile_atom_to_shape_SFA(problem);
    mainloop.ptr_SFB = args.scale_b;
    mainloop.layout_SFB = ScaleConfig::tile_atom_to_shape_SFB(problem);
  }
}

// The promotion interval in wgmma k-steps, for the mainloop that promotes.
template <class MainloopArguments>
void set_promotion(MainloopArguments& mainloop) {
  if constexpr (kPromotionKnob)
    mainloop.mma_promotion_interval = kPromotion * kTileK / rules::kMmaK;
}

// The epilogue visitors' scales: the tree's arguments, first child first.
template <class ThreadArguments>
void set_epilogue_scales(ThreadArguments& thread, const CutuneGemmFp8Args& args) {
  if constexpr (kScaling == rules::kScalingTensor) {
    thread = {{{}, {args.scale_a, args.scale_b}}, {}, {}};
  } else if constexpr (kScaling == rules::kScalingRowCol) {
    // Per row and per column of the kernel's product: D^T's rows are B's with swapped operands.
    const float* per_row = kSwapAB ? args.scale_b : args.scale_a;
    const float* per_column = kSwapAB ? args.scale_a : args.scale_b;
    thread = {{per_row}, {{per_column}, {}, {}}, {}};
  }
}

typename Gemm::Arguments arguments_of(const CutuneGemmFp8Args& args) {
  // The kernel's M and N, and its A and B: D's and A, B, or with swapped operands D^T's and B, A.
  const int m = static_cast<int>(kSwapAB ? args.n : args.m);
  const int n = static_cast<int>(kSwapAB ? args.m : args.n);
  const int k = static_cast<int>(args.k);
  // A (m, k) and B (n, k) are row-major in their own (rows, columns), D (m, n) as LayoutD says.
  const auto stride_a = packed_stride<typename Gemm::GemmKernel::StrideA>(m, k);
  const auto stride_b = packed_stride<typename Gemm::GemmKernel::StrideB>(n, k);
  const auto stride_d = packed_stride<typename Gemm::GemmKernel::StrideD>(m, n);
  const auto* a = static_cast<const ElementA*>(kSwapAB ? args.b : args.a);
  const auto* b = static_cast<const ElementB*>(kSwapAB ? args.a : args.b);
  auto* d = static_cast<ElementD*>(args.d);
  typename Gemm::Arguments out;
  out.mode = gk::GemmUniversalMode::kGemm;
  out.problem_shape = {m, n, k, 1};
  out.mainloop.ptr_A = a;
  out.mainloop.dA = stride_a;
  out.mainloop.ptr_B = b;
  out.mainloop.dB = stride_b;
  set_block_scales(out.mainloop, args);
  set_promotion(out.mainloop);
  out.epilogue.ptr_C = nullptr;
  out.epilogue.dC = stride_d;
  out.epilogue.ptr_D = d;
  out.epilogue.dD = stride_d;
  set_epilogue_scales(out.epilogue.thread, args);
  cudaGetDevice(&out.hw_info.device_id);  // the caller's current device
  out.hw_info.sm_count = args.sm_count;
  out.scheduler.max_swizzle_size = CUTUNE_SWIZZLE;
  // CUTUNE_RASTER 0 rasters along D's rows: the kernel's N with swapped operands.
  const bool along_kernel_m = (CUTUNE_RASTER == 0) != kSwapAB;
  out.scheduler.raster_order = along_kernel_m
                                   ? Gemm::GemmKernel::TileScheduler::RasterOrderOptions::AlongM
                                   : Gemm::GemmKernel::TileScheduler::RasterOrderOptions::AlongN;
  return out;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) unsigned long long cutune_gemm_fp8_workspace(
    const CutuneGemmFp8Args* args) {
  return Gemm::get_workspace_size(arguments_of(*args));
}

extern "C" __attribute__((visibility("default"))) void* cutune_gemm_fp8_prepare(
    const CutuneGemmFp8Args* args, void* workspace, char* error, int error_bytes) {
  auto fail = [&](const char* why) -> void* {
    std::snprintf(error, static_cast<size_t>(error_bytes), "%s", why);
    return nullptr;
  };
  if (args->abi_version != CUTUNE_GEMM_FP8_ABI_VERSION) return fail("ABI version mismatch");
  if (args->scaling != kScaling) return fail("the library was compiled for another scaling");
  if (args->a_format != CUTUNE_A_FORMAT || args->b_format != CUTUNE_B_FORMAT) {
    return fail("the library was compiled for other operand formats");
  }
  auto* prepared = new Prepared{Gemm(), arguments_of(*args), workspace};
  cutlass::Status status = prepared->gemm.can_implement(prepared->arguments);
  if (status == cutlass::Status::kSuccess) {
    status = prepared->gemm.initialize(prepared->arguments, workspace);
  }
  if (status != cutlass::Status::kSuccess) {
    delete prepared;
    return fail(cutlassGetStatusString(status));
  }
  return prepared;
}

extern "C" __attribute__((visibility("default"))) int cutune_gemm_fp8_launch(void* handle,
                                                                             void* stream) {
  auto* prepared = static_cast<Prepared*>(handle);
  const auto on = static_cast<cudaStream_t>(stream);
  cutlass::Status status = cutlass::Status::kSuccess;
  if constexpr (kStreamK) {  // a memset of the counters, on the launch's stream
    status = Kernel::initialize_workspace(prepared->arguments, prepared->workspace, on);
  }
  if (status == cutlass::Status::kSuccess) status = prepared->gemm.run(on);
  if (status == cutlass::Status::kSuccess) return 0;
  const cudaError_t error = cudaGetLastError();
  return error != cudaSuccess ? static_cast<int>(error) : static_cast<int>(cudaErrorLaunchFailure);
}

extern "C" __attribute__((visibility("default"))) void cutune_gemm_fp8_release(void* handle) {
  delete static_cast<Prepared*>(handle);
}
