/* Square roots of its input: defined only where the input is positive. */
#include <math.h>

#ifndef UNROLL
#define UNROLL 1
#endif

void roots(const double* x, double* out, int n) {
  for (int i = 0; i < n; i += UNROLL)
    for (int u = 0; u < UNROLL && i + u < n; ++u) out[i + u] = sqrt(x[i + u]);
}
