/* y = alpha * x, blocked and unrolled: a C kernel in Kernel Tuner's style (its tunable
 * parameters arrive as macros, and it returns its own time in ms, which Kernel Tuner's C backend
 * reports and cutune, timing the call itself, ignores), with a reference function in the same
 * file. */
#include <time.h>

#ifndef unroll
#define unroll 1
#endif
#ifndef block
#define block 64
#endif

float axpy(float* y, const float* x, int n, float alpha) {
  const clock_t began = clock();
  for (int start = 0; start < n; start += block) {
    const int end = start + block < n ? start + block : n;
    int i = start;
    for (; i + unroll <= end; i += unroll) {
      for (int u = 0; u < unroll; ++u) y[i + u] = alpha * x[i + u];
    }
    for (; i < end; ++i) y[i] = alpha * x[i];
  }
  return (float)(clock() - began) * 1000.0f / CLOCKS_PER_SEC;
}

void axpy_reference(float* y, const float* x, int n, float alpha) {
  for (int i = 0; i < n; ++i) y[i] = alpha * x[i];
}
