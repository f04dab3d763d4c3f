// The worker's helpers that a measuring tool outside the worker also needs (bench/gpu's
// gemm_peer_bench): driver error names and checks, seeded input values and the comparison with a
// reference, so that both fill and judge a kernel the same way. Declared in worker_host.hpp.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cutune/cuda/worker_protocol.hpp"
#include "eval/normwise_error.hpp"
#include "worker_host.hpp"

namespace proto = cutune::cuda::protocol;

namespace {

// --- element conversion for filling and comparing ---

double half_to_double(std::uint16_t half) {
  int exponent = (half >> 10) & 31;
  int mantissa = half & 1023;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  } else {
    magnitude = std::ldexp(mantissa | 1024, exponent - 25);
  }
  return (half & 0x8000) ? -magnitude : magnitude;
}

double bf16_to_double(std::uint16_t value) {
  std::uint32_t bits = static_cast<std::uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

double element(const std::vector<std::byte>& data, proto::Dtype dtype, std::size_t i) {
  auto read = [&](auto sample) {
    std::memcpy(&sample, data.data() + i * sizeof sample, sizeof sample);
    return sample;
  };
  switch (dtype) {
    case proto::Dtype::f64:
      return read(double{});
    case proto::Dtype::f32:
      return read(float{});
    case proto::Dtype::f16:
      return half_to_double(read(std::uint16_t{}));
    case proto::Dtype::bf16:
      return bf16_to_double(read(std::uint16_t{}));
    case proto::Dtype::i32:
      return read(std::int32_t{});
    case proto::Dtype::i64:
      return static_cast<double>(read(std::int64_t{}));
    case proto::Dtype::u32:
      return read(std::uint32_t{});
    case proto::Dtype::u64:
      return static_cast<double>(read(std::uint64_t{}));
    case proto::Dtype::u8:
      return read(std::uint8_t{});
  }
  return 0;
}

}  // namespace

namespace cutune::cuda::worker {

std::uint16_t float_to_half(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7e00;
  if (magnitude >= 65520.0f) return sign | 0x7c00;
  if (magnitude < 6.103515625e-05f) {  // below the smallest normal: a subnormal half
    return sign | static_cast<std::uint16_t>(std::lrint(magnitude * 16777216.0f));
  }
  int exponent = 0;
  float fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
  long mantissa = std::lrint((fraction * 2.0f - 1.0f) * 1024.0f);
  int field = exponent + 14;
  if (mantissa == 1024) {
    mantissa = 0;
    ++field;
  }
  return sign | static_cast<std::uint16_t>(field << 10) | static_cast<std::uint16_t>(mantissa);
}

std::uint16_t float_to_bf16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x0040);
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<std::uint16_t>(bits >> 16);
}

std::string error_name(CUresult code) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(code, &name);
  cuGetErrorString(code, &text);
  return std::string(name ? name : "CUDA_ERROR_?") + " (" + (text ? text : "no description") + ")";
}

void check(CUresult code, const char* call) {
  if (code != CUDA_SUCCESS) throw CudaError(code, std::string(call) + ": " + error_name(code));
}

// Errors after which the context is corrupt: every later call fails with the same error.
bool is_sticky(CUresult code) {
  switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

bool is_machine_trouble(CUresult code) {
  switch (code) {
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

GuardedBuffer::GuardedBuffer(std::size_t size)
    : storage(size + 2 * kGuardBytes), pointer(storage.pointer + kGuardBytes), bytes(size) {}

void GuardedBuffer::poison(CUstream stream) const {
  if (storage.pointer == 0) return;
  check(cuMemsetD8Async(storage.pointer, kPoison, kGuardBytes, stream), "cuMemsetD8Async");
  check(cuMemsetD8Async(pointer + bytes, kPoison, kGuardBytes, stream), "cuMemsetD8Async");
}

std::string GuardedBuffer::damage(const std::string& name) const {
  if (storage.pointer == 0) return {};
  std::vector<unsigned char> guard(kGuardBytes);
  const auto written = [&](CUdeviceptr at) {
    check(cuMemcpyDtoH(guard.data(), at, guard.size()), "cuMemcpyDtoH");
    return static_cast<std::size_t>(
        std::count_if(guard.begin(), guard.end(), [](unsigned char b) { return b != kPoison; }));
  };
  if (const std::size_t n = written(pointer + bytes); n > 0) {
    return "wrote past the end of " + name + " (" + std::to_string(n) + " of the " +
           std::to_string(kGuardBytes) + " guard bytes after it changed)";
  }
  if (const std::size_t n = written(storage.pointer); n > 0) {
    return "wrote before the start of " + name + " (" + std::to_string(n) + " of the " +
           std::to_string(kGuardBytes) + " guard bytes before it changed)";
  }
  return {};
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void put_value(proto::Dtype dtype, std::byte* out, double value) {
  auto put = [&](auto typed) { std::memcpy(out, &typed, sizeof typed); };
  switch (dtype) {
    case proto::Dtype::f64:
      return put(value);
    case proto::Dtype::f32:
      return put(static_cast<float>(value));
    case proto::Dtype::f16:
      return put(float_to_half(static_cast<float>(value)));
    case proto::Dtype::bf16:
      return put(float_to_bf16(static_cast<float>(value)));
    case proto::Dtype::i32:
      return put(static_cast<std::int32_t>(value));
    case proto::Dtype::i64:
      return put(static_cast<std::int64_t>(value));
    case proto::Dtype::u32:
      return put(static_cast<std::uint32_t>(value));
    case proto::Dtype::u64:
      return put(static_cast<std::uint64_t>(value));
    case proto::Dtype::u8:
      return put(static_cast<std::uint8_t>(value));
  }
}

std::vector<std::byte> converted(proto::Dtype dtype, const std::vector<double>& values) {
  std::vector<std::byte> data(values.size() * proto::dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    put_value(dtype, data.data() + i * proto::dtype_size(dtype), values[i]);
  }
  return data;
}

// Random values away from zero, so that a kernel that skips work cannot pass by accident (the
// values docs/spec-format.md promises): reals in +-[0.1, 1), integers in [1, 15].
std::vector<std::byte> random_values(proto::Dtype dtype, std::uint64_t count, Random& rng,
                                     bool positive) {
  std::vector<std::byte> data(count * proto::dtype_size(dtype));
  const bool real_type = dtype == proto::Dtype::f64 || dtype == proto::Dtype::f32 ||
                         dtype == proto::Dtype::f16 || dtype == proto::Dtype::bf16;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t bits = rng.next();
    float real = 0.1f + static_cast<float>(bits >> 40) * (0.9f / 16777216.0f);
    if ((bits & 1) && !positive) real = -real;
    std::int64_t integer = static_cast<std::int64_t>((bits >> 1) % 15) + 1;
    put_value(dtype, data.data() + i * proto::dtype_size(dtype),
              real_type ? static_cast<double>(real) : static_cast<double>(integer));
  }
  return data;
}

// eval::NormwiseError (summed: a partial_sums buffer); any non-finite output where the reference
// is finite fails outright (poisoned outputs are NaN, so an element never written fails too), and
// summed, any non-finite output.
Comparison compare(const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                   proto::Dtype dtype, std::uint64_t count, bool summed) {
  eval::NormwiseError error(summed);
  for (std::uint64_t i = 0; i < count; ++i) {
    double x = element(got, dtype, i), r = element(want, dtype, i);
    if (!std::isfinite(x) && (summed || std::isfinite(r))) {
      return {std::numeric_limits<double>::max(),
              "non-finite value " + std::to_string(x) + " at element " + std::to_string(i)};
    }
    error.add(x, r);
  }
  return {error.value(), {}};
}

}  // namespace cutune::cuda::worker
