// A blocked single-precision matrix product C = A * B (row-major: A is m x k, B is k x n).
// Knobs (set by the tuner as -D definitions; the defaults make the file compile on its own):
//   BM, BN, BK   block sizes along m, n and k
//   ORDER_0..2   the order of the three block loops, a permutation of 0 (m), 1 (n), 2 (k)
//   VEC          the vector width of the innermost loop, in floats
//   UNROLL       how many iterations of the innermost loop the compiler unrolls
// Only <cstdint>: every candidate is compiled, so the source stays light to compile.
#include <cstdint>

#ifndef BM
#define BM 32
#define BN 32
#define BK 32
#define ORDER_0 0
#define ORDER_1 1
#define ORDER_2 2
#define VEC 8
#define UNROLL 2
#endif

// #pragma does not expand macros; _Pragma on a stringized argument does.
#define PRAGMA(text) _Pragma(#text)
#define UNROLL_LOOP(n) PRAGMA(GCC unroll n)

namespace {

using Vec = float __attribute__((vector_size(VEC * sizeof(float))));

inline Vec load(const float* p) {
  Vec v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) { __builtin_memcpy(p, &v, sizeof v); }
inline std::int64_t min(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

// C[i0:i1, j0:j1] += A[i0:i1, k0:k1] * B[k0:k1, j0:j1]
void block(const float* a, const float* b, float* c, std::int64_t n, std::int64_t k,
           std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1, std::int64_t k0,
           std::int64_t k1) {
  const std::int64_t vector_end = j0 + (j1 - j0) / VEC * VEC;
  for (std::int64_t i = i0; i < i1; ++i) {
    float* c_row = c + i * n;
    for (std::int64_t p = k0; p < k1; ++p) {
      const float a_ip = a[i * k + p];
      const Vec a_vec = a_ip - Vec{};  // broadcast
      const float* b_row = b + p * n;
      UNROLL_LOOP(UNROLL)
      for (std::int64_t j = j0; j < vector_end; j += VEC) {
        store(c_row + j, load(c_row + j) + a_vec * load(b_row + j));
      }
      for (std::int64_t j = vector_end; j < j1; ++j) c_row[j] += a_ip * b_row[j];
    }
  }
}

}  // namespace

extern "C" void matmul(void** buffers, const std::int64_t* scalars) {
  const auto* a = static_cast<const float*>(buffers[0]);
  const auto* b = static_cast<const float*>(buffers[1]);
  auto* c = static_cast<float*>(buffers[2]);
  const std::int64_t extent[3] = {scalars[0], scalars[1], scalars[2]};  // m, n, k
  constexpr std::int64_t step[3] = {BM, BN, BK};
  for (std::int64_t i = 0; i < extent[0] * extent[1]; ++i) c[i] = 0.0f;

  std::int64_t at[3];
  for (at[ORDER_0] = 0; at[ORDER_0] < extent[ORDER_0]; at[ORDER_0] += step[ORDER_0]) {
    for (at[ORDER_1] = 0; at[ORDER_1] < extent[ORDER_1]; at[ORDER_1] += step[ORDER_1]) {
      for (at[ORDER_2] = 0; at[ORDER_2] < extent[ORDER_2]; at[ORDER_2] += step[ORDER_2]) {
        block(a, b, c, extent[1], extent[2], at[0], min(at[0] + BM, extent[0]), at[1],
              min(at[1] + BN, extent[1]), at[2], min(at[2] + BK, extent[2]));
      }
    }
  }
}
