// A kernel that fails on purpose, one way per value of the MODE knob, to show that the tuner
// classifies every failure and loses nothing it measured. y = 2 x + 1 elementwise.
//   MODE 0  correct
//   MODE 1  does not compile                           -> compile_error
//   MODE 2  writes far outside its buffer               -> crash (illegal address, sticky)
//   MODE 3  never ends                                  -> hang (the watchdog kills the worker)
//   MODE 4  one element wrong                           -> wrong_result
//   MODE 5  one element NaN                             -> wrong_result (NaN never passes)
//   MODE 6  compiles for minutes (template blow-up)     -> compile_timeout
//   MODE 7  also writes 16 elements past the end of y   -> wrong_result (y's guard region);
//           without guards it passes or faults, by what happens to follow y in memory
//   MODE 8  wrong on every third launch                 -> wrong_result (its first check passes;
//           the re-checks after its timed runs do not)
//   MODE 9  __trap()                                    -> crash (a sticky error)
// and BLOCK (threads per block) 2048 is more than a block may have -> launch_error.
#ifndef MODE
#define MODE 0
#endif

#if MODE == 6
// Each Grow<N, M> instantiates two more, so the compiler does work quadratic in N per tree.
template <int N, int M>
struct Grow {
  static constexpr long long value = Grow<N - 1, M>::value % 7 + Grow<N - 1, M + 1>::value % 7;
};
template <int M>
struct Grow<0, M> {
  static constexpr long long value = M;
};
#define SLOW_TERM(i) Grow<180, (i)*1000>::value
#endif

#if MODE == 8
__device__ unsigned long long launches;  // per loaded module: the worker keeps it between launches
#endif

extern "C" __global__ void scale_add(const float* __restrict__ x, float* __restrict__ y,
                                     long long n) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += threads) {
#if MODE == 0
    y[i] = 2.0f * x[i] + 1.0f;
#elif MODE == 1
    y[i] = 2.0f * x[i] + this_name_is_not_declared;
#elif MODE == 2
    y[i + (1ll << 40)] = 2.0f * x[i] + 1.0f;
#elif MODE == 3
    while (x[i] != 12345.0f) __nanosleep(1000);  // inputs are in [-1, 1]: forever
    y[i] = 2.0f * x[i] + 1.0f;
#elif MODE == 4
    y[i] = 2.0f * x[i] + (i == n / 2 ? 2.0f : 1.0f);
#elif MODE == 5
    y[i] = i == n / 3 ? __int_as_float(0x7fc00000) : 2.0f * x[i] + 1.0f;
#elif MODE == 7
    y[i] = 2.0f * x[i] + 1.0f;
    if (i < 16) y[n + i] = 0.0f;
#elif MODE == 8
    // Element 0 alone decides, so every launch is wholly right or wrong in one element.
    y[i] = 2.0f * x[i] + 1.0f;
    if (i == 0 && (atomicAdd(&launches, 1ull) + 1) % 3 == 0) y[0] = 0.0f;
#elif MODE == 9
    if (i == n / 2) __trap();
    y[i] = 2.0f * x[i] + 1.0f;
#elif MODE == 6
    y[i] = 2.0f * x[i] + 1.0f +
           static_cast<float>(SLOW_TERM(0) + SLOW_TERM(1) + SLOW_TERM(2) + SLOW_TERM(3) +
                              SLOW_TERM(4) + SLOW_TERM(5));
#endif
  }
}

extern "C" __global__ void scale_add_reference(const float* x, float* y, long long n) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += threads) {
    y[i] = 2.0f * x[i] + 1.0f;
  }
}
