// A sum reduction whose MODE knob selects a behaviour, so that one space holds every way a
// candidate can fail: the tuner must record each with its reason and still pick the fastest
// correct config.
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>

#ifndef MODE  // compiled on its own: the correct, fast mode
#define MODE_fast 1
#endif

#if defined(MODE_slow)
constexpr int passes = 16;  // repeats the work: correct, but slower than fast
#else
constexpr int passes = 1;
#endif

namespace {

double sum(const float* in, std::int64_t n) {
  double partial[4] = {0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int lane = 0; lane < 4; ++lane) partial[lane] += in[i + lane];
  }
  for (; i < n; ++i) partial[0] += in[i];
  return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

}  // namespace

#if defined(MODE_compile_error)
static_assert(false, "this mode does not compile");
#endif

#if defined(MODE_static_init_abort) || defined(MODE_static_init_hang)
// Runs when the worker loads the object, before any call of the entry.
struct Fault {
  Fault() {
#if defined(MODE_static_init_abort)
    std::abort();
#else
    for (volatile bool spinning = true; spinning;) {
    }
#endif
  }
} fault;
#endif

#if defined(MODE_stack_overflow)
// Recursion the compiler cannot turn into a loop: the volatile array is live across the call.
int deep(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return deep(depth + 1) + frame[0];
}
#endif

#if defined(MODE_compile_hang)
// Constant evaluation that would run for minutes: the compiler must be killed at its time limit.
// Unsigned, so no overflow ends it early; two nested loops, each within g++'s per-loop iteration
// limit (2^18); faults.json lifts the operation limit (2^25 by default), so only the time limit
// ends it.
constexpr unsigned long spin() {
  unsigned long s = 0;
  for (unsigned long i = 0; i < (1UL << 17); ++i) {
    for (unsigned long j = 0; j < (1UL << 17); ++j) s += i ^ j ^ (s >> 3);
  }
  return s;
}
constexpr unsigned long spun = spin();
#endif

extern "C" void reduce(void** buffers, const std::int64_t* scalars) {
  const auto* in = static_cast<const float*>(buffers[0]);
  auto* out = static_cast<double*>(buffers[1]);
  const std::int64_t n = scalars[0];
#if defined(MODE_segfault)
  volatile float* far = const_cast<float*>(in) + (std::int64_t{1} << 42);
  *far = 1.0f;
#elif defined(MODE_abort)
  std::abort();
#elif defined(MODE_hang)
  for (volatile bool spinning = true; spinning;) {
  }
#elif defined(MODE_wrong)
  out[0] = sum(in, n - 1);
  return;
#elif defined(MODE_flaky)
  // Right on two calls of three: passes a check that runs once, and must lose to one that doesn't.
  static int calls = 0;
  if (++calls % 3 == 0) {
    out[0] = sum(in, n - 1);
    return;
  }
#elif defined(MODE_write_past_end)
  out[1] = 0;  // out holds one element
#elif defined(MODE_write_before_start)
  out[-1] = 0;
#elif defined(MODE_write_past_input)
  const_cast<float*>(in)[n] = 0;
#elif defined(MODE_nan)
  out[0] = __builtin_nan("");
  return;
#elif defined(MODE_exit_zero)
  std::_Exit(0);
#elif defined(MODE_exit_code)
  std::exit(3);
#elif defined(MODE_sigfpe)
  std::raise(SIGFPE);
#elif defined(MODE_sigbus)
  std::raise(SIGBUS);
#elif defined(MODE_trap)
  __builtin_trap();
#elif defined(MODE_stack_overflow)
  out[0] = deep(0);
#elif defined(MODE_sleep)
  // Sleeps past the spec's limit (timeout_s): a hang that wants no CPU, on a busy machine too.
  ::usleep(4'000'000);
#elif defined(MODE_fd_garbage)
  // Text into every descriptor the worker may hold open (its protocol pipe among them).
  for (int fd = 3; fd < 64; ++fd) {
    if (::write(fd, "garbage {\n", 10) < 0) continue;
  }
#endif
  double total = 0;
  // Each pass goes through a volatile so that the compiler cannot fold the repeats.
  for (int pass = 0; pass < passes; ++pass) {
    volatile double once = sum(in, n);
    total = once;
  }
  out[0] = total;
}

// The reference: a plain loop in double.
extern "C" void reduce_reference(void** buffers, const std::int64_t* scalars) {
  const auto* in = static_cast<const float*>(buffers[0]);
  double total = 0;
  for (std::int64_t i = 0; i < scalars[0]; ++i) total += in[i];
  static_cast<double*>(buffers[1])[0] = total;
}
