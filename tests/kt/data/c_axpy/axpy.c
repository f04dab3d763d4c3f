/* y = alpha * x, blocked and unrolled: a C kernel in Kernel Tuner's style (its tunable
 * parameters arrive as macros), with a reference function in the same file. */
#ifndef unroll
#define unroll 1
#endif
#ifndef block
#define block 64
#endif

void axpy(float* y, const float* x, int n, float alpha) {
  for (int start = 0; start < n; start += block) {
    const int end = start + block < n ? start + block : n;
    int i = start;
    for (; i + unroll <= end; i += unroll) {
      for (int u = 0; u < unroll; ++u) y[i + u] = alpha * x[i + u];
    }
    for (; i < end; ++i) y[i] = alpha * x[i];
  }
}

void axpy_reference(float* y, const float* x, int n, float alpha) {
  for (int i = 0; i < n; ++i) y[i] = alpha * x[i];
}
