// One Jacobi sweep of the 2D heat equation on an n x n grid (row-major f32): every interior
// point becomes a weighted mean of itself and its four neighbours; the border is copied.
// Knobs: TILE_I x TILE_J tiles, and UNROLL of the innermost loop.
#include <cstdint>

#ifndef TILE_I
#define TILE_I 16
#define TILE_J 64
#define UNROLL 1
#endif

// #pragma does not expand macros; _Pragma on a stringized argument does.
#define PRAGMA(text) _Pragma(#text)
#define UNROLL_LOOP(n) PRAGMA(GCC unroll n)

extern "C" void stencil(void** buffers, const std::int64_t* scalars) {
  const auto* in = static_cast<const float*>(buffers[0]);
  auto* out = static_cast<float*>(buffers[1]);
  const std::int64_t n = scalars[0];
  const float centre = 0.6f, side = 0.1f;

  for (std::int64_t j = 0; j < n; ++j) {
    out[j] = in[j];
    out[(n - 1) * n + j] = in[(n - 1) * n + j];
  }
  for (std::int64_t i = 1; i < n - 1; ++i) {
    out[i * n] = in[i * n];
    out[i * n + n - 1] = in[i * n + n - 1];
  }
  for (std::int64_t ti = 1; ti < n - 1; ti += TILE_I) {
    const std::int64_t i_end = ti + TILE_I < n - 1 ? ti + TILE_I : n - 1;
    for (std::int64_t tj = 1; tj < n - 1; tj += TILE_J) {
      const std::int64_t j_end = tj + TILE_J < n - 1 ? tj + TILE_J : n - 1;
      for (std::int64_t i = ti; i < i_end; ++i) {
        const float* up = in + (i - 1) * n;
        const float* row = in + i * n;
        const float* down = in + (i + 1) * n;
        float* target = out + i * n;
        UNROLL_LOOP(UNROLL)
        for (std::int64_t j = tj; j < j_end; ++j) {
          target[j] = centre * row[j] + side * (up[j] + down[j] + row[j - 1] + row[j + 1]);
        }
      }
    }
  }
}
