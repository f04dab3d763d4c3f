// C = A * B for row-major float matrices (A: m x k, B: k x n, C: m x n), tiled in shared memory.
// The kernel is a template; the tuner instantiates it through an NVRTC name expression
// ("tiled_matmul<TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>", the knobs being -D definitions).
//   TILE_M x TILE_N    the block's tile of C
//   TILE_K             the depth of the A and B tiles staged in (dynamic) shared memory
//   THREAD_M x THREAD_N  each thread's register tile: the block has
//                        (TILE_M / THREAD_M) * (TILE_N / THREAD_N) threads
// Launch: block = that many threads, grid = (cdiv(n, TILE_N), cdiv(m, TILE_M)),
// dynamic shared memory = (TILE_M + TILE_N) * TILE_K * 4 bytes (above 48 KiB the tuner opts in).
template <int kTileM, int kTileN, int kTileK, int kThreadM, int kThreadN>
__global__ void __launch_bounds__((kTileM / kThreadM) * (kTileN / kThreadN))
    tiled_matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                 long long m, long long n, long long k) {
  constexpr int kThreadsX = kTileN / kThreadN;
  constexpr int kThreadsY = kTileM / kThreadM;
  constexpr int kThreads = kThreadsX * kThreadsY;
  extern __shared__ float staged[];
  float* a_tile = staged;                    // kTileM x kTileK
  float* b_tile = staged + kTileM * kTileK;  // kTileK x kTileN

  const int tx = threadIdx.x % kThreadsX, ty = threadIdx.x / kThreadsX;
  const long long row0 = static_cast<long long>(blockIdx.y) * kTileM;
  const long long col0 = static_cast<long long>(blockIdx.x) * kTileN;
  float acc[kThreadM][kThreadN] = {};

  for (long long k0 = 0; k0 < k; k0 += kTileK) {
    for (int i = threadIdx.x; i < kTileM * kTileK; i += kThreads) {
      long long r = row0 + i / kTileK, col = k0 + i % kTileK;
      a_tile[i] = r < m && col < k ? a[r * k + col] : 0.0f;
    }
    for (int i = threadIdx.x; i < kTileK * kTileN; i += kThreads) {
      long long r = k0 + i / kTileN, col = col0 + i % kTileN;
      b_tile[i] = r < k && col < n ? b[r * n + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      float a_frag[kThreadM], b_frag[kThreadN];
      // Threads interleave over rows and columns, so that neighbours read neighbouring words.
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) a_frag[i] = a_tile[(ty + i * kThreadsY) * kTileK + kk];
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) b_frag[j] = b_tile[kk * kTileN + tx + j * kThreadsX];
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) {
      long long r = row0 + ty + i * kThreadsY, col = col0 + tx + j * kThreadsX;
      if (r < m && col < n) c[r * n + col] = acc[i][j];
    }
  }
}

// The reference: one output element per thread, accumulated in double; grid-stride, so any
// launch shape computes every element.
extern "C" __global__ void matmul_reference(const float* a, const float* b, float* c, long long m,
                                            long long n, long long k) {
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * blockDim.x;
  const long long first =
      (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  for (long long index = first; index < m * n; index += threads) {
    long long r = index / n, col = index % n;
    double acc = 0.0;
    for (long long i = 0; i < k; ++i) acc += static_cast<double>(a[r * k + i]) * b[i * n + col];
    c[index] = static_cast<float>(acc);
  }
}
