#include "gemm/gemm_launch.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace cutune::gemm {
namespace {

constexpr int kReduceThreads = 256;
// Enough blocks of the grid-stride reduction to fill any current GPU several times over.
constexpr std::int64_t kMaxReduceBlocks = 4096;

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(result, &name);
  throw std::runtime_error(std::string("hopper gemm: ") + what +
                           " failed: " + (name != nullptr ? name : "unknown CUDA error"));
}

// cuTensorMapEncodeTiled of an fp16/bf16 tensor of Rank dims (innermost first, element strides
// 1), read in boxes of `box`.
template <std::size_t Rank>
CUtensorMap encode_tiled(DType dtype, CUdeviceptr base, const std::array<cuuint64_t, Rank>& dims,
                         const std::array<cuuint64_t, Rank - 1>& strides,
                         const std::array<cuuint32_t, Rank>& box, CUtensorMapSwizzle swizzle,
                         const char* what) {
  const CUtensorMapDataType type =
      dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  std::array<cuuint32_t, Rank> element_strides;
  element_strides.fill(1);
  CUtensorMap map{};
  check(cuTensorMapEncodeTiled(
            &map, type, Rank, reinterpret_cast<void*>(base), dims.data(), strides.data(),
            box.data(), element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        what);
  return map;
}

// A 2-D row-major tensor of `rows` x `columns`, read in boxes of box_rows x box_columns.
CUtensorMap encode_tensor_map(DType dtype, CUdeviceptr base, std::int64_t rows,
                              std::int64_t columns, int box_rows, int box_columns,
                              const char* operand) {
  const int row_bytes = box_columns * 2;
  const CUtensorMapSwizzle swizzle =
      row_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  const std::string what = std::string("cuTensorMapEncodeTiled for ") + operand;
  return encode_tiled<2>(dtype, base,
                         {static_cast<cuuint64_t>(columns), static_cast<cuuint64_t>(rows)},
                         {static_cast<cuuint64_t>(columns) * 2},
                         {static_cast<cuuint32_t>(box_columns), static_cast<cuuint32_t>(box_rows)},
                         swizzle, what.c_str());
}

// A cluster of `size` blocks along x.
CUlaunchAttribute cluster_attribute(int size) {
  CUlaunchAttribute cluster{};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = size;
  cluster.value.clusterDim.y = 1;
  cluster.value.clusterDim.z = 1;
  return cluster;
}

// A 1-D grid of `grid_blocks` blocks of kThreadsPerBlock threads.
CUlaunchConfig launch_config(int grid_blocks, int shared_bytes, CUstream stream,
                             CUlaunchAttribute* attributes, unsigned attribute_count) {
  CUlaunchConfig launch{};
  launch.gridDimX = grid_blocks;
  launch.gridDimY = 1;
  launch.gridDimZ = 1;
  launch.blockDimX = kThreadsPerBlock;
  launch.blockDimY = 1;
  launch.blockDimZ = 1;
  launch.sharedMemBytes = shared_bytes;
  launch.hStream = stream;
  launch.attrs = attributes;
  launch.numAttrs = attribute_count;
  return launch;
}

int device_attribute(CUdevice device, CUdevice_attribute attribute, const char* what) {
  int value = 0;
  check(cuDeviceGetAttribute(&value, attribute, device), what);
  return value;
}

}  // namespace

GemmKernel GemmKernel::load(CUmodule module) {
  GemmKernel kernel;
  check(cuModuleGetFunction(&kernel.gemm, module, kGemmSymbol), "cuModuleGetFunction(cutune_gemm)");
  check(cuModuleGetFunction(&kernel.splitk_reduce, module, kSplitKReduceSymbol),
        "cuModuleGetFunction(cutune_gemm_splitk_reduce)");
  return kernel;
}

GemmLaunch::GemmLaunch(const GemmKernel& kernel, const GemmProblem& problem,
                       const GemmConfig& config, const GemmOperands& operands, CUdevice device)
    : kernel_(kernel), problem_(problem), config_(config), operands_(operands) {
  const int shared_limit = device_attribute(
      device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared memory query");
  if (const auto reasons = violations(config, problem, shared_limit); !reasons.empty()) {
    throw std::runtime_error("hopper gemm: config " + to_string(config) + " cannot run " +
                             std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
                             std::to_string(problem.k) + ": " + joined(reasons));
  }
  constexpr std::int64_t kIntMax = 0x7fffffff;
  if (problem.m > kIntMax || problem.n > kIntMax || problem.k > kIntMax) {
    throw std::runtime_error("hopper gemm: problem dimensions exceed the kernel's 32-bit indices");
  }
  if (config.split_k > 1 && operands.workspace == 0) {
    throw std::runtime_error("hopper gemm: split_k = " + std::to_string(config.split_k) +
                             " needs a workspace of " +
                             std::to_string(workspace_bytes(config, problem)) + " bytes");
  }

  // Each CTA of a cluster loads its share of the operands the cluster multicasts (see the kernel).
  const int atom_k = std::min(config.tile_k, 64);
  tensor_a_ = encode_tensor_map(problem.dtype, operands.a, problem.m, problem.k,
                                config.tile_m / config.cluster_n, atom_k, "A");
  if (problem.b_layout == BLayout::n_by_k) {
    tensor_b_ = encode_tensor_map(problem.dtype, operands.b, problem.n, problem.k,
                                  config.tile_n / config.cluster_m, atom_k, "B");
  } else {
    tensor_b_ = encode_tensor_map(problem.dtype, operands.b, problem.k, problem.n,
                                  config.tile_k / config.cluster_m, 64, "B");
  }
  // The epilogue stores D through TMA in 16 x 64 boxes (128-byte swizzle); split-K writes its
  // fp32 workspace from registers instead and has no staging boxes.
  if (epilogue_buffers(config) > 0) {
    tensor_d_ = encode_tensor_map(problem.dtype, operands.d, problem.m, problem.n,
                                  rules::kEpilogueBoxRows, 64, "D");
  }

  shared_bytes_ = shared_memory_bytes(config);
  check(cuFuncSetAttribute(kernel.gemm, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           shared_bytes_),
        "raising the kernel's dynamic shared memory limit");

  const int cluster_size = config.cluster_m * config.cluster_n;
  const int units = work_units(config, problem);
  int resident_clusters = 0;
  if (cluster_size == 1) {
    const int sms =
        device_attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count query");
    int blocks_per_sm = 0;
    check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel.gemm, kThreadsPerBlock,
                                                      shared_bytes_),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    resident_clusters = sms * blocks_per_sm;
  } else {
    CUlaunchAttribute cluster = cluster_attribute(cluster_size);
    const CUlaunchConfig launch = launch_config(cluster_size, shared_bytes_, nullptr, &cluster, 1);
    check(cuOccupancyMaxActiveClusters(&resident_clusters, kernel.gemm, &launch),
          "cuOccupancyMaxActiveClusters");
  }
  if (resident_clusters < 1) {
    throw std::runtime_error("hopper gemm: no cluster of " + std::to_string(cluster_size) +
                             " blocks with " + std::to_string(shared_bytes_) +
                             " bytes of shared memory fits on the device");
  }
  grid_blocks_ = std::min(resident_clusters, units) * cluster_size;

  if (config.split_k > 1) {
    const std::int64_t quads = problem.m * problem.n / 4;
    reduce_blocks_ = static_cast<int>(
        std::min<std::int64_t>((quads + kReduceThreads - 1) / kReduceThreads, kMaxReduceBlocks));
  }
}

void GemmLaunch::launch(CUstream stream) const {
  int m = static_cast<int>(problem_.m);
  int n = static_cast<int>(problem_.n);
  int k = static_cast<int>(problem_.k);
  CUdeviceptr d = operands_.d;
  CUdeviceptr workspace = operands_.workspace;
  void* gemm_args[] = {const_cast<CUtensorMap*>(&tensor_a_),
                       const_cast<CUtensorMap*>(&tensor_b_),
                       &d,
                       &workspace,
                       &m,
                       &n,
                       &k,
                       const_cast<CUtensorMap*>(&tensor_d_)};

  std::array<CUlaunchAttribute, 2> attributes{};
  unsigned attribute_count = 0;
  const int cluster_size = config_.cluster_m * config_.cluster_n;
  if (cluster_size > 1) {
    attributes[attribute_count++] = cluster_attribute(cluster_size);
  }
  if (config_.fast_launch) {
    CUlaunchAttribute& programmatic = attributes[attribute_count++];
    programmatic.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    programmatic.value.programmaticStreamSerializationAllowed = 1;
  }
  const CUlaunchConfig launch =
      launch_config(grid_blocks_, shared_bytes_, stream, attributes.data(), attribute_count);
  check(cuLaunchKernelEx(&launch, kernel_.gemm, gemm_args, nullptr), "launching cutune_gemm");

  if (config_.split_k > 1) {
    long long elements = problem_.m * problem_.n;
    void* reduce_args[] = {&workspace, &d, &elements};
    check(cuLaunchKernel(kernel_.splitk_reduce, reduce_blocks_, 1, 1, kReduceThreads, 1, 1, 0,
                         stream, reduce_args, nullptr),
          "launching cutune_gemm_splitk_reduce");
  }
}

}  // namespace cutune::gemm
