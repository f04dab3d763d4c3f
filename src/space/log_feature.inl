constexpr double log2_positive(double x) {
  int exponent = 0;
  while (x >= 2.0) {
    x /= 2.0;
    ++exponent;
  }
  while (x < 1.0) {
    x *= 2.0;
    --exponent;
  }
  const double z = (x - 1.0) / (x + 1.0);
  const double z2 = z * z;
  double term = z;
  double sum = 0.0;
  for (int i = 1; i < 60; i += 2) {
    sum += term / i;
    term *= z2;
  }
  return exponent + 2.0 * sum * 1.4426950408889634;  // 1 / ln 2
}

constexpr double log_feature(double x) {
  return x >= 0 ? log2_positive(1.0 + x) : -log2_positive(1.0 - x);
}
