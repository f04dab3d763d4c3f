// y[i] = 3 x[i] + 1, walked in CHUNK-sized pieces with an unrolled inner loop. The knobs change
// the code, not the result: every config computes the same y.
#include <cstdint>

#define PRAGMA(text) _Pragma(#text)
#define UNROLL_LOOP(n) PRAGMA(GCC unroll n)

extern "C" void scale(void** buffers, const std::int64_t* scalars) {
  const auto* x = static_cast<const float*>(buffers[0]);
  auto* y = static_cast<float*>(buffers[1]);
  const std::int64_t n = scalars[0];
  for (std::int64_t start = 0; start < n; start += CHUNK) {
    const std::int64_t end = start + CHUNK < n ? start + CHUNK : n;
    UNROLL_LOOP(UNROLL)
    for (std::int64_t i = start; i < end; ++i) y[i] = 3.0f * x[i] + 1.0f;
  }
}
