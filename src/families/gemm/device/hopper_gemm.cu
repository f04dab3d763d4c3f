// Hopper (sm_90a) GEMM: D = A * B with bf16 or fp16 inputs and output and fp32 accumulation.
// A is M x K row-major; B is K x N row-major (CUTUNE_B_LAYOUT 0) or N x K row-major (1); D is
// M x N row-major.
//
// One persistent block per SM: a producer warpgroup streams A and B tiles with TMA into a ring of
// shared-memory stages guarded by mbarriers (multicast across a thread-block cluster), and two
// consumer warpgroups multiply them with wgmma and store the result through shared memory with TMA.
// Which tiles and k-blocks each cluster computes (data-parallel or split-K) is
// gemm_schedule.hpp's plan, which the host's tests check.
// Every knob arrives as a -D macro (see gemm_problem.hpp, compile_defines()); the host side is
// gemm_launch.cpp, which builds the tensor maps and launch geometry this file expects. Legal
// values, limits and the shared-memory formula come from gemm_rules.hpp, which the host rules read
// too; the tuner's compiler prepends its text (and gemm_schedule.hpp's), so the includes below are
// for standalone builds.
//
// Built from CuTe/CUTLASS arch-level pieces only (TMA copy, wgmma, barriers, register
// reconfiguration) so that one configuration compiles in seconds.

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>

#include <cute/arch/cluster_sm90.hpp>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/arch/mma_sm90_gmma.hpp>
#include <utility>

#ifndef CUTUNE_GEMM_RULES_HPP
#include "../gemm_rules.hpp"
#endif
#ifndef CUTUNE_GEMM_SCHEDULE_HPP
#include "../gemm_schedule.hpp"
#endif

// Defaults select the family's default configuration, so the file compiles on its own.
#ifndef CUTUNE_TILE_M
#define CUTUNE_TILE_M 128
#endif
#ifndef CUTUNE_TILE_N
#define CUTUNE_TILE_N 256
#endif
#ifndef CUTUNE_TILE_K
#define CUTUNE_TILE_K 64
#endif
#ifndef CUTUNE_STAGES
#define CUTUNE_STAGES 4
#endif
#ifndef CUTUNE_CLUSTER_M
#define CUTUNE_CLUSTER_M 2
#endif
#ifndef CUTUNE_CLUSTER_N
#define CUTUNE_CLUSTER_N 1
#endif
#ifndef CUTUNE_SCHEDULE
#define CUTUNE_SCHEDULE 0
#endif
#ifndef CUTUNE_RASTER
#define CUTUNE_RASTER 1
#endif
#ifndef CUTUNE_SWIZZLE
#define CUTUNE_SWIZZLE 8
#endif
#ifndef CUTUNE_SPLIT_K
#define CUTUNE_SPLIT_K 1
#endif
#ifndef CUTUNE_FAST_LAUNCH
#define CUTUNE_FAST_LAUNCH 0
#endif
#ifndef CUTUNE_DTYPE
#define CUTUNE_DTYPE 0
#endif
#ifndef CUTUNE_B_LAYOUT
#define CUTUNE_B_LAYOUT 0
#endif

namespace {

namespace gmma = cute::SM90::GMMA;
namespace rules = cutune::gemm::rules;

constexpr int kTileM = CUTUNE_TILE_M;
constexpr int kTileN = CUTUNE_TILE_N;
constexpr int kTileK = CUTUNE_TILE_K;
constexpr int kStages = CUTUNE_STAGES;
constexpr int kClusterM = CUTUNE_CLUSTER_M;
constexpr int kClusterN = CUTUNE_CLUSTER_N;
constexpr int kClusterSize = kClusterM * kClusterN;
constexpr bool kPingpong = CUTUNE_SCHEDULE == 1;
constexpr bool kRasterAlongM = CUTUNE_RASTER == 0;
constexpr int kSwizzle = CUTUNE_SWIZZLE;
constexpr int kSplitK = CUTUNE_SPLIT_K;
constexpr bool kFastLaunch = CUTUNE_FAST_LAUNCH == 1;
constexpr bool kBIsKMajor = CUTUNE_B_LAYOUT == 1;

#if CUTUNE_DTYPE == 0
using Element = __nv_bfloat16;
using Element2 = __nv_bfloat162;
#define CUTUNE_MMA_TYPES BF16BF16
#elif CUTUNE_DTYPE == 1
using Element = __half;
using Element2 = __half2;
#define CUTUNE_MMA_TYPES F16F16
#else
#error "CUTUNE_DTYPE must be 0 (bf16) or 1 (fp16)"
#endif

static_assert(rules::one_of(kTileM, rules::kTileM), "CUTUNE_TILE_M: see rules::kTileM");
static_assert(rules::one_of(kTileN, rules::kTileN), "CUTUNE_TILE_N: see rules::kTileN");
static_assert(rules::one_of(kTileK, rules::kTileK), "CUTUNE_TILE_K: see rules::kTileK");
static_assert(kStages >= rules::kMinStages && kStages <= rules::kMaxStages, "CUTUNE_STAGES");
static_assert(rules::one_of(kClusterM, rules::kClusterExtent) &&
                  rules::one_of(kClusterN, rules::kClusterExtent),
              "CUTUNE_CLUSTER_M and CUTUNE_CLUSTER_N: see rules::kClusterExtent");
// Any group width and any slice count: Schedule::unit divides by them (no shifts), and the
// reduction loops over the slices.
static_assert(kSwizzle >= rules::kMinSwizzle && kSwizzle <= rules::kMaxSwizzle, "CUTUNE_SWIZZLE");
static_assert(kSplitK >= rules::kMinSplitK && kSplitK <= rules::kMaxSplitK, "CUTUNE_SPLIT_K");
static_assert(kPingpong || kTileM >= 128, "the cooperative schedule needs CUTUNE_TILE_M >= 128");
static_assert(!kFastLaunch || rules::fast_launch_allowed(kClusterM, kClusterN, kPingpong, kSplitK),
              "CUTUNE_FAST_LAUNCH: see rules::fast_launch_allowed");

constexpr int kWarpgroupThreads = 128;
constexpr int kThreads = rules::kThreadsPerBlock;
static_assert(kThreads == 3 * kWarpgroupThreads, "one producer and two consumer warpgroups");
constexpr int kProducerRegisters = 40;
constexpr int kConsumerRegisters = 232;

// Rows of a tile that one consumer warpgroup multiplies, as wgmma blocks of 64 rows.
constexpr int kWarpgroupRows = kPingpong ? kTileM : kTileM / 2;
constexpr int kMmaBlocks = kWarpgroupRows / 64;
constexpr int kAccumulators = kTileN / 2;  // fp32 results per thread of one 64 x kTileN block
static_assert(kMmaBlocks * kAccumulators ==
              rules::accumulators_per_thread(kTileM, kTileN, kPingpong));
static_assert(kMmaBlocks * kAccumulators <= rules::kMaxAccumulatorsPerThread,
              "too many accumulators per consumer thread");

// Shared memory layout of one stage. A K-major operand (A, and B when kBIsKMajor) is stored as
// kTileK / kAtomK chunks of [rows][kAtomK] whose rows are one swizzle span wide (128 bytes, or 64
// when kTileK is 32). An N-major B is stored as kTileN / 64 chunks of [kTileK][64], 128-byte rows.
constexpr int kElementBytes = rules::kElementBytes;
constexpr int kAtomK = kTileK < 64 ? kTileK : 64;
constexpr int kKChunks = kTileK / kAtomK;
constexpr int kNChunks = kTileN / 64;
constexpr int kABytes = kTileM * kTileK * kElementBytes;
constexpr int kBBytes = kTileN * kTileK * kElementBytes;
constexpr int kStageBytes = kABytes + kBBytes;
constexpr int kSwizzleAtomBytes = rules::kSwizzleAtomBytes;
static_assert(kABytes % kSwizzleAtomBytes == 0 && kBBytes % kSwizzleAtomBytes == 0,
              "every tile must start on a swizzle atom");
static_assert(kStageBytes == rules::pipeline_bytes(kTileM, kTileN, kTileK, 1) - kSwizzleAtomBytes -
                                 2 * rules::kBarrierBytes,
              "the stage layout below and rules::pipeline_bytes must agree");

// The epilogue's staging: per consumer warp, kEpilogueBuffers boxes of 16 rows x 64 columns
// (2 KiB, 128-byte swizzle) after the stages; none with split-K (fp32 slices go to the workspace
// from registers).
constexpr int kConsumerWarps = rules::kConsumerWarps;
constexpr int kEpilogueBuffers = rules::epilogue_buffers(kTileM, kTileN, kTileK, kStages, kSplitK);
constexpr bool kTmaStore = kEpilogueBuffers > 0;
// The staging ring's length, never 0 (split-K compiles the TMA-store code without running it).
constexpr int kBoxRing = kTmaStore ? kEpilogueBuffers : 1;
constexpr int kEpilogueBoxBytes = rules::kEpilogueBoxBytes;
constexpr int kEpilogueBytes = kEpilogueBuffers * kConsumerWarps * kEpilogueBoxBytes;
// The same formula as shared_memory_bytes() on the host; the kernel traps if it was given less.
constexpr int kSharedBytes = rules::shared_bytes(kTileM, kTileN, kTileK, kStages, kSplitK);
static_assert(kSharedBytes == kStages * kStageBytes + kSwizzleAtomBytes + kEpilogueBytes +
                                  kStages * 2 * rules::kBarrierBytes,
              "the shared memory layout below and rules::shared_bytes must agree");
static_assert(kSharedBytes <= rules::kSharedMemoryPerBlock,
              "stages, tiles and epilogue staging exceed sm_90's shared memory per block");

// Each CTA of a cluster loads its share of a multicast operand: A is shared by the kClusterN CTAs
// of one cluster row, B by the kClusterM CTAs of one cluster column.
constexpr int kARowsPerLoad = kTileM / kClusterN;
constexpr int kBRowsPerLoad = kBIsKMajor ? kTileN / kClusterM : kTileK / kClusterM;

// Consumer arrivals that free a stage: every consumer warpgroup that reads it, in every CTA of
// the cluster, since any of them may be written by a peer's multicast.
constexpr int kConsumersPerStage = kPingpong ? 1 : 2;
constexpr int kEmptyArrivals = kConsumersPerStage * kClusterSize;

constexpr uint64_t kCacheHint = static_cast<uint64_t>(cute::TMA::CacheHintSm90::EVICT_NORMAL);
constexpr uint64_t kEvictFirst = static_cast<uint64_t>(cute::TMA::CacheHintSm90::EVICT_FIRST);
constexpr uint64_t kEvictLast = static_cast<uint64_t>(cute::TMA::CacheHintSm90::EVICT_LAST);

#define CUTUNE_MMA_NAME_(n, types) gmma::MMA_64x##n##x16_F32##types##_SS
#define CUTUNE_MMA_NAME(n, types) CUTUNE_MMA_NAME_(n, types)
using Mma = CUTUNE_MMA_NAME(
    CUTUNE_TILE_N, CUTUNE_MMA_TYPES)<gmma::Major::K, kBIsKMajor ? gmma::Major::K : gmma::Major::MN>;

using Barrier = cutlass::arch::ClusterTransactionBarrier;

// Hardware named barriers (0 is __syncthreads), each shared by the two consumer warpgroups or
// private to one (+ consumer index).
constexpr uint32_t kMathOrderBarrier = 1;  // ping-pong: warpgroup i may start its next main loop
constexpr uint32_t kStageVoteBarrier = 3;  // warpgroup i agrees on whether a stage has landed

__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// True when `value` holds in every thread of the warpgroup: wgmma.wait_group must be reached by
// the whole warpgroup or not at all, so a branch around it needs a warpgroup-uniform condition.
__device__ __forceinline__ bool all_in_warpgroup(bool value, uint32_t id) {
  uint32_t all;
  asm volatile(
      "{\n\t.reg .pred in, out;\n\t"
      "setp.ne.u32 in, %1, 0;\n\t"
      "bar.red.and.pred out, %2, 128, in;\n\t"
      "selp.u32 %0, 1, 0, out;\n\t}"
      : "=r"(all)
      : "r"(static_cast<uint32_t>(value)), "r"(id));
  return all != 0;
}

// Shared memory descriptor of a wgmma operand (PTX ISA, "Matrix Descriptor Format"); the 14-bit
// fields are in 16-byte units.
__device__ __forceinline__ uint64_t smem_descriptor(const void* base, int layout_type,
                                                    int leading_bytes, int stride_bytes) {
  const uint32_t address = cute::cast_smem_ptr_to_uint(base);
  return static_cast<uint64_t>((address >> 4) & 0x3FFF) |
         static_cast<uint64_t>((leading_bytes >> 4) & 0x3FFF) << 16 |
         static_cast<uint64_t>((stride_bytes >> 4) & 0x3FFF) << 32 |
         static_cast<uint64_t>(layout_type) << 62;
}

constexpr int kKMajorLayout = kAtomK == 64 ? 1 : 2;        // SWIZZLE_128B : SWIZZLE_64B
constexpr int kKMajorStride = 8 * kAtomK * kElementBytes;  // one 8-row swizzle atom

// Descriptor of the 64 rows of a K-major operand tile that start at `row`, for k-step `k16`.
__device__ __forceinline__ uint64_t k_major_descriptor(const Element* tile, int rows, int row,
                                                       int k16) {
  const int k = k16 * 16;
  const Element* start = tile + (k / kAtomK) * rows * kAtomK + row * kAtomK + k % kAtomK;
  return smem_descriptor(start, kKMajorLayout, 16, kKMajorStride);
}

// Descriptor of the whole N-major B tile for k-step `k16`: 64-column chunks kTileK rows apart.
__device__ __forceinline__ uint64_t n_major_descriptor(const Element* tile, int k16) {
  return smem_descriptor(tile + k16 * 16 * 64, 1, kTileK * 64 * kElementBytes, 1024);
}

template <int... I>
__device__ __forceinline__ void mma(uint64_t desc_a, uint64_t desc_b, float (&acc)[kAccumulators],
                                    std::integer_sequence<int, I...>) {
  Mma::fma(desc_a, desc_b, acc[I]..., gmma::ScaleOut::One);
}

// Keeps the compiler from moving accumulator reads or writes across wgmma issue and wait.
__device__ __forceinline__ void fence_accumulators(float (&acc)[kMmaBlocks][kAccumulators]) {
#pragma unroll
  for (int mb = 0; mb < kMmaBlocks; ++mb) {
#pragma unroll
    for (int i = 0; i < kAccumulators; ++i) cute::warpgroup_fence_operand(acc[mb][i]);
  }
}

namespace plan = cutune::gemm::schedule;

__device__ __forceinline__ uint16_t multicast_mask(int first_rank, int rank_step, int count) {
  uint16_t mask = 0;
  for (int i = 0; i < count; ++i) mask |= static_cast<uint16_t>(1u << (first_rank + i * rank_step));
  return mask;
}

// A 2-D TMA load into this CTA, or, when kMulticast, into the same offset of every CTA in `mask`.
template <bool kMulticast>
__device__ __forceinline__ void load_2d(const CUtensorMap* map, uint64_t* barrier, uint16_t mask,
                                        void* destination, int inner, int outer,
                                        uint64_t hint = kCacheHint) {
  if constexpr (kMulticast) {
    cute::SM90_TMA_LOAD_MULTICAST_2D::copy(map, barrier, mask, hint, destination, inner, outer);
  } else {
    cute::SM90_TMA_LOAD_2D::copy(map, barrier, hint, destination, inner, outer);
  }
}

// Issues the k16 steps [kFirst, kLast) of one k-block for every 64-row block of the warpgroup.
template <int kFirst, int kLast>
__device__ __forceinline__ void issue_k_steps(const Element* a, const Element* b, int row_offset,
                                              float (&acc)[kMmaBlocks][kAccumulators]) {
#pragma unroll
  for (int k16 = kFirst; k16 < kLast; ++k16) {
    const uint64_t desc_b =
        kBIsKMajor ? k_major_descriptor(b, kTileN, 0, k16) : n_major_descriptor(b, k16);
#pragma unroll
    for (int mb = 0; mb < kMmaBlocks; ++mb) {
      mma(k_major_descriptor(a, kTileM, row_offset + mb * 64, k16), desc_b, acc[mb],
          std::make_integer_sequence<int, kAccumulators>{});
    }
  }
}

// The TMA store pieces of the epilogue, each with a compiler memory barrier.
__device__ __forceinline__ void fence_shared_for_async_proxy() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* source, int inner,
                                             int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(cute::cast_smem_ptr_to_uint(source)), "r"(inner), "r"(outer)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most kPending of this thread's TMA stores still read shared memory.
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ void tma_store_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__device__ __forceinline__ uint32_t pack_pair(float x, float y) {
  Element2 pair;
  pair.x = Element(x);
  pair.y = Element(y);
  return *reinterpret_cast<uint32_t*>(&pair);
}

// Four 8x8 16-bit matrices, one register of each per thread in the mma fragment layout (row
// lane / 4, columns 2 * (lane % 4) + {0, 1}); lane l gives the address of row l % 8 of matrix l
// / 8. A staging box takes 4 of these per warp where 32-bit st.shared took 16 per thread
// (measured +4 % at 8192x8192x1024, where the epilogue weighs most; docs/perf.md).
__device__ __forceinline__ void stmatrix_x4(void* row, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   cute::cast_smem_ptr_to_uint(row)),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

__device__ __forceinline__ uint32_t dynamic_shared_bytes() {
  uint32_t bytes;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

}  // namespace

// D is written through tensor_d (or, with split-K, by cutune_gemm_splitk_reduce); `d` stays in the
// parameter list so that every cubin of the family takes the same arguments (gemm_launch.cpp).
extern "C" __global__ void __launch_bounds__(kThreads, 1)
    cutune_gemm(const __grid_constant__ CUtensorMap tensor_a,
                const __grid_constant__ CUtensorMap tensor_b,
                [[maybe_unused]] Element* __restrict__ d, float* __restrict__ workspace, int m,
                int n, int k, const __grid_constant__ CUtensorMap tensor_d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t shared_raw[];
  if (dynamic_shared_bytes() < kSharedBytes) __trap();
  uint8_t* shared =
      reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(shared_raw) + kSwizzleAtomBytes - 1) &
                                 ~uintptr_t{kSwizzleAtomBytes - 1});
  auto stage_a = [&](int stage) {
    return reinterpret_cast<Element*>(shared + stage * kStageBytes);
  };
  auto stage_b = [&](int stage) {
    return reinterpret_cast<Element*>(shared + stage * kStageBytes + kABytes);
  };
  // The epilogue's staging boxes follow the stages (1024-byte aligned), the barriers follow them.
  [[maybe_unused]] uint8_t* epilogue_shared = shared + kStages * kStageBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(shared + kStages * kStageBytes + kEpilogueBytes);
  uint64_t* empty = full + kStages;

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int rank = kClusterSize == 1 ? 0 : static_cast<int>(cute::block_rank_in_cluster());
  const int cluster_m = rank % kClusterM;
  const int cluster_n = rank / kClusterM;

  if (threadIdx.x == 0) {
    cute::prefetch_tma_descriptor(&tensor_a);
    cute::prefetch_tma_descriptor(&tensor_b);
    if constexpr (kTmaStore) cute::prefetch_tma_descriptor(&tensor_d);
    for (int stage = 0; stage < kStages; ++stage) {
      Barrier::init(&full[stage], 1);
      Barrier::init(&empty[stage], kEmptyArrivals);
    }
    cutlass::arch::fence_barrier_init();
  }
  // Peers arrive on and multicast into this CTA's barriers: all must be initialised first.
  if constexpr (kClusterSize > 1) {
    cute::cluster_sync();
  } else {
    __syncthreads();
  }
  if constexpr (kFastLaunch) {
    // Let the next kernel's blocks start their prologue, and wait for the previous kernel's
    // results before touching global memory.
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
  }

  const int cluster = blockIdx.x / kClusterSize;
  const int clusters = gridDim.x / kClusterSize;
  const plan::Plan schedule(m, n, k, kClusterM * kTileM, kClusterN * kTileN, kTileK, kSplitK,
                            kSwizzle, kRasterAlongM, clusters);
  const int items = schedule.items(cluster);

  if (warpgroup == 0) {
    cutlass::arch::warpgroup_reg_dealloc<kProducerRegisters>();
    // The whole first warp runs the producer loop, converged, so that its addresses and
    // coordinates stay warp-uniform (uniform registers); one elected lane issues. A loop run by a
    // single thread spent most of its time moving each TMA operand into uniform registers, and
    // fell behind the consumers.
    if (threadIdx.x / 32 == 0) {
      const bool leader = cute::elect_one_sync();
      const uint16_t a_mask = kClusterN == 1 ? 0 : multicast_mask(cluster_m, kClusterM, kClusterN);
      // One cluster row of tiles (skinny M): every CTA rereads A, and each B tile is read by one
      // cluster, so A is kept in L2 and B streamed through it (measured +8 % at 128x8192x8192,
      // neutral where M spans several tile rows; docs/perf.md).
      const bool skinny = schedule.tiles_m == 1;
      const uint64_t a_hint = skinny ? kEvictLast : kCacheHint;
      const uint64_t b_hint = skinny ? kEvictFirst : kCacheHint;
      const uint16_t b_mask =
          kClusterM == 1 ? 0 : multicast_mask(cluster_n * kClusterM, 1, kClusterM);
      int iteration = 0;
      for (int index = 0; index < items; ++index) {
        const plan::WorkItem work = schedule.item(cluster, index);
        const int a_row =
            (work.tile_m * kClusterM + cluster_m) * kTileM + cluster_n * kARowsPerLoad;
        const int n0 = (work.tile_n * kClusterN + cluster_n) * kTileN;
        int k0 = work.k_block_begin * kTileK;
        for (int kb = 0; kb < work.k_blocks; ++kb, ++iteration, k0 += kTileK) {
          const int stage = iteration % kStages;
          Barrier::wait(&empty[stage], ((iteration / kStages) & 1) ^ 1);
          if (leader) {
            Barrier::arrive_and_expect_tx(&full[stage], kStageBytes);
            Element* a = stage_a(stage) + cluster_n * kARowsPerLoad * kAtomK;
            Element* b = stage_b(stage);
#pragma unroll
            for (int chunk = 0; chunk < kKChunks; ++chunk) {
              load_2d<(kClusterN > 1)>(&tensor_a, &full[stage], a_mask, a + chunk * kTileM * kAtomK,
                                       k0 + chunk * kAtomK, a_row, a_hint);
            }
            if constexpr (kBIsKMajor) {
              b += cluster_m * kBRowsPerLoad * kAtomK;
#pragma unroll
              for (int chunk = 0; chunk < kKChunks; ++chunk) {
                load_2d<(kClusterM > 1)>(&tensor_b, &full[stage], b_mask,
                                         b + chunk * kTileN * kAtomK, k0 + chunk * kAtomK,
                                         n0 + cluster_m * kBRowsPerLoad, b_hint);
              }
            } else {
              b += cluster_m * kBRowsPerLoad * 64;
#pragma unroll
              for (int chunk = 0; chunk < kNChunks; ++chunk) {
                load_2d<(kClusterM > 1)>(&tensor_b, &full[stage], b_mask, b + chunk * kTileK * 64,
                                         n0 + chunk * 64, k0 + cluster_m * kBRowsPerLoad, b_hint);
              }
            }
          }
          __syncwarp();
        }
      }
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const int thread = threadIdx.x % kWarpgroupThreads;
    const int warp = thread / 32;
    const int lane = thread % 32;
    const int row_offset = kPingpong ? 0 : consumer * kWarpgroupRows;
    float acc[kMmaBlocks][kAccumulators];

    // Frees `stage` in every CTA of the cluster (peers multicast into it).
    auto release = [&](int stage) {
      if (thread == 0) {
        if constexpr (kClusterSize == 1) {
          Barrier::arrive(&empty[stage]);
        } else {
          for (int peer = 0; peer < kClusterSize; ++peer) Barrier::arrive(&empty[stage], peer, 1);
        }
      }
    };

    int iteration = 0;
    [[maybe_unused]] int epilogue_box = 0;  // staging boxes used so far (none with split-K)
    for (int index = 0; index < items; ++index) {
      const plan::WorkItem work = schedule.item(cluster, index);
      if (kPingpong && index % 2 != consumer) {
        iteration += work.k_blocks;  // the other warpgroup's tile
        continue;
      }
#pragma unroll
      for (int mb = 0; mb < kMmaBlocks; ++mb) {
#pragma unroll
        for (int i = 0; i < kAccumulators; ++i) acc[mb][i] = 0.0f;
      }
      // Ping-pong: start only once the other warpgroup has waited on every stage of the previous
      // tile, so that each wait below is at most one phase ahead of its barrier (a parity wait
      // cannot tell phases two apart).
      if (kPingpong && index > 0) {
        named_barrier_sync(kMathOrderBarrier + consumer, 2 * kWarpgroupThreads);
      }
      bool previous_released = true;
      for (int kb = 0; kb < work.k_blocks; ++kb, ++iteration) {
        const int stage = iteration % kStages;
        const uint32_t phase = (iteration / kStages) & 1;
        // When this stage has not landed yet, free the previous one now instead of after this
        // one lands, so that the producer can refill it sooner. (On the H200 suite this measured
        // neither faster nor slower; see docs/perf.md, run 4.)
        if (kb > 0 && !all_in_warpgroup(Barrier::test_wait(&full[stage], phase, 1),
                                        kStageVoteBarrier + consumer)) {
          cute::warpgroup_wait<0>();
          release((iteration - 1) % kStages);
          previous_released = true;
        }
        Barrier::wait(&full[stage], phase);
        const Element* a = stage_a(stage);
        const Element* b = stage_b(stage);
        fence_accumulators(acc);
        cute::warpgroup_arrive();
        issue_k_steps<0, kTileK / 16>(a, b, row_offset, acc);
        cute::warpgroup_commit_batch();
        fence_accumulators(acc);
        if (!previous_released) {
          // Keep one batch in flight: the previous stage's MMAs are done once one batch remains.
          // (Waiting for this batch and freeing its stage at once measured 1-2% slower.)
          cute::warpgroup_wait<1>();
          release((iteration - 1) % kStages);
        }
        previous_released = false;
      }
      if (kPingpong && index + 1 < items) {
        // The next tile is the other warpgroup's.
        named_barrier_arrive(kMathOrderBarrier + 1 - consumer, 2 * kWarpgroupThreads);
      }
      cute::warpgroup_wait<0>();
      if (work.k_blocks > 0) release((iteration - 1) % kStages);

      // Epilogue: each thread holds, per 64-row block, rows warp*16 + lane/4 (+8) and column
      // pairs 8*j + 2*(lane%4) of the warpgroup's accumulator fragment.
      const int m0 = (work.tile_m * kClusterM + cluster_m) * kTileM + row_offset;
      const int n0 = (work.tile_n * kClusterN + cluster_n) * kTileN;
      if constexpr (kTmaStore) {
        // Each warp writes its 16 rows x 64 columns of one chunk into a staging box
        // (128-byte swizzle: 16-byte unit j of row r sits at unit j ^ (r % 8), conflict-free),
        // and one lane stores the box with TMA, which clips rows and columns outside D.
        uint8_t* boxes =
            epilogue_shared + (consumer * 4 + warp) * kEpilogueBuffers * kEpilogueBoxBytes;
#pragma unroll
        for (int mb = 0; mb < kMmaBlocks; ++mb) {
#pragma unroll
          for (int chunk = 0; chunk < kNChunks; ++chunk, ++epilogue_box) {
            uint8_t* box = boxes + (epilogue_box % kBoxRing) * kEpilogueBoxBytes;
            // The store that last read this box must be done with it.
            if (lane == 0) tma_store_wait_read<kBoxRing - 1>();
            __syncwarp();
            // Matrices (rows 0-7, units j), (8-15, j), (0-7, j+1), (8-15, j+1): lane l addresses
            // row l % 8 of matrix l / 8, i.e. box row r below, 16-byte unit j + l / 16.
            const int r = (lane / 8) % 2 * 8 + lane % 8;
#pragma unroll
            for (int j = 0; j < 8; j += 2) {
              const int index = (chunk * 8 + j) * 4;
              stmatrix_x4(box + r * 128 + (((j + lane / 16) ^ (r % 8)) << 4),
                          pack_pair(acc[mb][index], acc[mb][index + 1]),
                          pack_pair(acc[mb][index + 2], acc[mb][index + 3]),
                          pack_pair(acc[mb][index + 4], acc[mb][index + 5]),
                          pack_pair(acc[mb][index + 6], acc[mb][index + 7]));
            }
            fence_shared_for_async_proxy();
            __syncwarp();
            if (lane == 0) {
              tma_store_2d(&tensor_d, box, n0 + chunk * 64, m0 + mb * 64 + warp * 16);
            }
          }
        }
      } else {
        // Split-K: this slice's fp32 partial sums, straight from registers to the workspace.
#pragma unroll
        for (int mb = 0; mb < kMmaBlocks; ++mb) {
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = m0 + mb * 64 + warp * 16 + lane / 4 + half * 8;
            if (row >= m) continue;
            float* slice = workspace + static_cast<size_t>(work.split) * m * n;
#pragma unroll
            for (int j = 0; j < kTileN / 8; ++j) {
              const int col = n0 + j * 8 + (lane % 4) * 2;
              if (col >= n) continue;
              *reinterpret_cast<float2*>(slice + static_cast<size_t>(row) * n + col) =
                  make_float2(acc[mb][j * 4 + half * 2], acc[mb][j * 4 + half * 2 + 1]);
            }
          }
        }
      }
    }
  }

  // The last TMA stores must finish reading shared memory (and writing D).
  if constexpr (kTmaStore) {
    if (warpgroup > 0 && threadIdx.x % 32 == 0) tma_store_wait_all();
  }
  // No CTA may exit while a peer can still multicast into it or arrive on its barriers.
  if constexpr (kClusterSize > 1) cute::cluster_sync();
#else
  // Only sm_90a has wgmma and setmaxnreg.
  __trap();
#endif
}

// Sums the kSplitK fp32 slices of `workspace` (each m x n) into D. `elements` = m * n, a
// multiple of 4 since n is a multiple of 8.
extern "C" __global__ void cutune_gemm_splitk_reduce(const float* __restrict__ workspace,
                                                     Element* __restrict__ d, long long elements) {
  const long long quads = elements / 4;
  for (long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; q < quads;
       q += static_cast<long long>(gridDim.x) * blockDim.x) {
    float4 sum = reinterpret_cast<const float4*>(workspace)[q];
#pragma unroll
    for (int split = 1; split < kSplitK; ++split) {
      const float4 part = reinterpret_cast<const float4*>(workspace + split * elements)[q];
      sum.x += part.x;
      sum.y += part.y;
      sum.z += part.z;
      sum.w += part.w;
    }
    Element2 low;
    low.x = Element(sum.x);
    low.y = Element(sum.y);
    Element2 high;
    high.x = Element(sum.z);
    high.y = Element(sum.w);
    reinterpret_cast<Element2*>(d)[2 * q] = low;
    reinterpret_cast<Element2*>(d)[2 * q + 1] = high;
  }
}
