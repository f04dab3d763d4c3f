/* x = 2 x + 1 in place, unrolled. An unroll of 3 drops the tail of a length that 3 does not
 * divide: wrong, and only a comparison with another config's results can tell. */
#ifndef UNROLL
#define UNROLL 1
#endif

void inplace_scale(double* x, int n) {
  int i = 0;
  for (; i + UNROLL <= n; i += UNROLL) {
    for (int u = 0; u < UNROLL; ++u) x[i + u] = 2 * x[i + u] + 1;
  }
  for (; UNROLL != 3 && i < n; ++i) x[i] = 2 * x[i] + 1;
}
