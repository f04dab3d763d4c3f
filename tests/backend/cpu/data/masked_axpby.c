/* A kernel as its author wrote it, for the spec's `arguments`: pointers of several element types
 * and 32- and 64-bit integer and floating scalars, in the author's order, and its reference in
 * the same file. The candidate checks that each scalar arrived with the value the spec gives it
 * (n = 1000, alpha = 0.5, m = 7, beta = -2): a scalar passed in the wrong type or place leaves
 * the output poisoned. BUG = 1 computes something else, to show the check compares. */
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef BUG
#define BUG 0
#endif

static float element(const float* x, const double* w, const unsigned char* mask, int i, float alpha,
                     long long m, double beta) {
  return (mask[i] & 1) ? (float)(alpha * x[i] + beta * w[i % m]) : x[i];
}

void masked_axpby(float* out, const float* x, int n, float alpha, const double* w, long long m,
                  double beta, const unsigned char* mask) {
  if (n != 1000 || alpha != 0.5f || m != 7 || beta != -2.0) return;
  int i = 0;
  for (; i + UNROLL <= n; i += UNROLL) {
    for (int u = 0; u < UNROLL; ++u) out[i + u] = element(x, w, mask, i + u, alpha, m, beta);
  }
  for (; i < n; ++i) out[i] = element(x, w, mask, i, alpha, m, beta);
  if (BUG) out[n / 2] += 1.0f;
}

void masked_axpby_reference(float* out, const float* x, int n, float alpha, const double* w,
                            long long m, double beta, const unsigned char* mask) {
  for (int i = 0; i < n; ++i) out[i] = element(x, w, mask, i, alpha, m, beta);
}
