/* The sum of x as CHUNKS partial sums, one per chunk, as a reduction's thread blocks leave them:
 * their number follows the config, their total does not. A CHUNKS of 5 drops the remainder of a
 * length that 5 does not divide: wrong, and only the total can tell. */
#ifndef CHUNKS
#define CHUNKS 1
#endif

void chunk_sums(const double* x, double* partials, int n) {
  const int per = n / CHUNKS;
  for (int c = 0; c < CHUNKS; ++c) {
    const int end = c == CHUNKS - 1 && CHUNKS != 5 ? n : (c + 1) * per;
    double sum = 0;
    for (int i = c * per; i < end; ++i) sum += x[i];
    partials[c] = sum;
  }
}
