// Row sums of a rows x cols matrix of floats: out[r] = sum over c of in[r * cols + c].
// One block per row. Knobs, passed as -D definitions:
//   BLOCK_THREADS  threads per block (a power of two, 32 to 1024)
//   VEC            floats per load: 1, 2 or 4 (vector loads where the row start allows them)
//   UNROLL         unroll factor of the load loop
//   WARP_SHUFFLE   1: reduce within warps by shuffles; 0: a tree in shared memory
#ifndef BLOCK_THREADS
#define BLOCK_THREADS 256
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef WARP_SHUFFLE
#define WARP_SHUFFLE 1
#endif

#define CUTUNE_PRAGMA(text) _Pragma(#text)
#define CUTUNE_UNROLL(count) CUTUNE_PRAGMA(unroll count)

template <int kVec>
__device__ float sum_of(const float* p) {
  if constexpr (kVec == 4) {
    float4 v = *reinterpret_cast<const float4*>(p);
    return (v.x + v.y) + (v.z + v.w);
  } else if constexpr (kVec == 2) {
    float2 v = *reinterpret_cast<const float2*>(p);
    return v.x + v.y;
  } else {
    return *p;
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
    row_sum(const float* __restrict__ in, float* __restrict__ out, long long rows, long long cols) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const float* line = in + row * cols;
  float acc = 0.0f;
  long long done = 0;
  if (VEC > 1 && (row * cols) % VEC == 0) {  // the row starts aligned for vector loads
    const long long vector_end = cols / VEC * VEC;
    CUTUNE_UNROLL(UNROLL)
    for (long long c = threadIdx.x * VEC; c < vector_end; c += BLOCK_THREADS * VEC) {
      acc += sum_of<VEC>(line + c);
    }
    done = vector_end;
  }
  CUTUNE_UNROLL(UNROLL)
  for (long long c = done + threadIdx.x; c < cols; c += BLOCK_THREADS) acc += line[c];

#if WARP_SHUFFLE
  __shared__ float warp_sums[BLOCK_THREADS / 32];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < BLOCK_THREADS / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
      acc += __shfl_down_sync(0xffffffffu, acc, offset);
    }
    if (lane == 0) out[row] = acc;
  }
#else
  __shared__ float partial[BLOCK_THREADS];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = BLOCK_THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[row] = partial[0];
#endif
}

// The reference: one thread per row, in double. Grid-stride, so any launch shape computes all.
extern "C" __global__ void row_sum_reference(const float* in, float* out, long long rows,
                                             long long cols) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += threads) {
    double acc = 0.0;
    for (long long c = 0; c < cols; ++c) acc += in[row * cols + c];
    out[row] = static_cast<float>(acc);
  }
}
