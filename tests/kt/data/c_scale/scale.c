/* y += alpha * x in place, unrolled: a C kernel in Kernel Tuner's style whose tune script gives
 * no `answer`. Its unroll of 3 drops the tail of a length that 3 does not divide, a mistake that
 * only a check against another config's results can see. */
#ifndef unroll
#define unroll 1
#endif

void scale_add(float* y, const float* x, int n, float alpha) {
  int i = 0;
  for (; i + unroll <= n; i += unroll) {
    for (int u = 0; u < unroll; ++u) y[i + u] += alpha * x[i + u];
  }
  for (; unroll != 3 && i < n; ++i) y[i] += alpha * x[i];
}
