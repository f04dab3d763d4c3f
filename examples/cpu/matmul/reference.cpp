// The reference product: a plain triple loop accumulating in double.
#include <cstdint>

extern "C" void matmul_reference(void** buffers, const std::int64_t* scalars) {
  const auto* a = static_cast<const float*>(buffers[0]);
  const auto* b = static_cast<const float*>(buffers[1]);
  auto* c = static_cast<float*>(buffers[2]);
  const std::int64_t m = scalars[0], n = scalars[1], k = scalars[2];
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t p = 0; p < k; ++p) sum += double(a[i * k + p]) * double(b[p * n + j]);
      c[i * n + j] = static_cast<float>(sum);
    }
  }
}
