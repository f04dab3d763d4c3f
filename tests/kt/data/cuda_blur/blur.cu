// A vertical blur in Kernel Tuner's style: the weights in constant memory (cmem_args), scalars
// between the pointers, a grid divided by two knobs in y, and a naive reference kernel.
#ifndef block_size_x
#define block_size_x 32
#endif
#ifndef block_size_y
#define block_size_y 8
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#define radius 4

__constant__ float d_weights[2 * radius + 1];

__device__ float blurred(const float* in, int width, int height, int x, int y) {
  float sum = 0.0f;
  for (int k = -radius; k <= radius; ++k) {
    const int row = min(max(y + k, 0), height - 1);
    sum += d_weights[k + radius] * in[row * width + x];
  }
  return sum;
}

__global__ void blur_kernel(float* out, const float* in, int width, int height, float scale) {
  const int x = blockIdx.x * block_size_x + threadIdx.x;
  for (int t = 0; t < tile_size_y; ++t) {
    const int y = (blockIdx.y * tile_size_y + t) * block_size_y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = scale * blurred(in, width, height, x, y);
  }
}

__global__ void blur_naive(float* out, const float* in, int width, int height, float scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = scale * blurred(in, width, height, x, y);
}
