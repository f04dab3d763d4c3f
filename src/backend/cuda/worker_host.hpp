// What `cutune-cuda-worker` lends to a measuring mode compiled into it: a kernel family whose
// launch the generic "measure" request cannot describe (the GEMM family builds tensor maps on the
// host) answers requests of its own (op "family", protocol::FamilyRequest), and reuses the
// worker's context, module cache, input values, comparison and timing loop. The worker knows no
// family by name: it finds a family's mode in the worker's table of families, generated from
// src/families/CMakeLists.txt (docs/families.md).
//
// Error contract, as for the worker's own requests: throw CudaError for a sticky error (the worker
// replies "crash" and exits), LaunchRefused for a launch the driver refused with the context
// intact (the candidate's launch_error).
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/cuda/worker_protocol.hpp"

namespace cutune::cuda::worker {

struct CudaError : std::runtime_error {
  CudaError(CUresult code, const std::string& what) : std::runtime_error(what), code(code) {}
  CUresult code;
};

// A refused launch is the candidate's failure; an unusable context ends the worker.
struct LaunchRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string error_name(CUresult code);
// Throws CudaError naming `call` unless `code` is CUDA_SUCCESS.
void check(CUresult code, const char* call);
// Errors after which the context is corrupt: every later call fails with the same error.
bool is_sticky(CUresult code);
double milliseconds_since(std::chrono::steady_clock::time_point start);

// Nearest-even conversions of a float to the bits of a half and a bfloat16.
std::uint16_t float_to_half(float value);
std::uint16_t float_to_bf16(float value);

// SplitMix64: fast enough to fill hundreds of millions of elements; the seed fixes the values.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Random values away from zero, so that a kernel that skips work cannot pass by accident: reals
// in +-[0.1, 1), integers in [1, 15]; with `positive`, the reals' magnitudes.
std::vector<std::byte> random_values(protocol::Dtype dtype, std::uint64_t count, Random& rng,
                                     bool positive = false);

// One value written as `dtype` at `out` (integers truncated toward zero); `values` all so.
void put_value(protocol::Dtype dtype, std::byte* out, double value);
std::vector<std::byte> converted(protocol::Dtype dtype, const std::vector<double>& values);

struct Comparison {
  double max_rel_error = 0;
  std::string problem;  // empty when every element is finite
};

// Normwise relative error max|x - ref| / max|ref|; any non-finite output where the reference is
// finite fails outright (poisoned outputs are NaN, so an element never written fails too).
// `summed` (a partial_sums buffer): |sum(x) - sum(ref)| / sum|ref|, the error the order of a sum
// of these elements may make, and any non-finite element fails.
Comparison compare(const std::vector<std::byte>& got, const std::vector<std::byte>& want,
                   protocol::Dtype dtype, std::uint64_t count, bool summed = false);

struct DeviceBuffer {
  CUdeviceptr pointer = 0;
  std::size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size) : bytes(size) {
    check(cuMemAlloc(&pointer, size > 0 ? size : 1), "cuMemAlloc");
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept : pointer(other.pointer), bytes(other.bytes) {
    other.pointer = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(pointer, other.pointer);
    std::swap(bytes, other.bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (pointer) cuMemFree(pointer);
  }
};

// A device buffer between two guard regions: the kernel is handed `pointer`, and a write up to
// kGuardBytes before its start or after its end changes a guard's poison, which damage() names.
// Allocations are rounded up to pages, so a small overrun would otherwise fault nowhere and pass.
// poison() is stream-ordered (before the launch to be checked); damage() reads both guards back
// synchronously (after it). A default-constructed buffer (a scalar argument) has no guards.
struct GuardedBuffer {
  static constexpr std::size_t kGuardBytes = 64 * 1024;  // a multiple of 256: keeps alignment
  static constexpr unsigned char kPoison = 0xa5;         // not a byte NaN, zero or -1 fill writes
  DeviceBuffer storage;
  CUdeviceptr pointer = 0;
  std::size_t bytes = 0;

  GuardedBuffer() = default;
  explicit GuardedBuffer(std::size_t size);
  void poison(CUstream stream) const;
  // Empty when both guards hold their poison; else which was written, named after `name`.
  std::string damage(const std::string& name) const;
};

// Machine trouble, not the kernel's: no device memory left (another process holds it), an
// uncorrectable ECC error, a device that is unavailable. A worker meeting one replies "transient".
bool is_machine_trouble(CUresult code);

// A kernel wrong only sometimes (every third call, say) or writing out of bounds only sometimes
// passes one check. After its timed runs a candidate is checked this many more times, each from
// restored inputs, poisoned outputs and poisoned guards.
constexpr int kRechecksAfterTiming = 3;

// Runs `check_once` (which fills a reply's outcome and detail and says whether the candidate
// passed) kRechecksAfterTiming times; false, with the failing check's outcome and detail in
// `reply`, at the first failure.
bool recheck_after_timing(const std::function<bool(protocol::MeasureReply&)>& check_once,
                          protocol::MeasureReply& reply);

// After paired rounds: every candidate that was timed (launches[j] set) is re-checked by
// check_one(j, reply) as recheck_after_timing does; one that fails has its candidate_outcomes
// and candidate_details replaced and its round times set to -1 (not timed).
void recheck_after_rounds(
    const std::vector<std::function<void()>>& launches,
    const std::function<bool(std::size_t, protocol::MeasureReply&)>& check_one,
    protocol::MeasureReply& reply);

// The worker as a mode sees it.
class Host {
 public:
  virtual ~Host() = default;
  virtual CUdevice device() const = 0;
  virtual CUstream stream() const = 0;
  virtual const protocol::DeviceReport& report() const = 0;
  virtual int sm_clock_mhz() const = 0;
  virtual double power_w() const = 0;  // board power draw; 0 when NVML could not tell
  // The module of a cubin, loaded once and cached. Throws LaunchRefused when it does not load.
  virtual CUmodule module(const std::string& cubin) = 0;
  // Warms up, then times repetitions of `launch_once` (which enqueues one run on stream()) as the
  // worker times every kernel: L2 flushed before each, median, min, max, quartiles, repetitions
  // and graph use written into `reply`.
  virtual void time(const std::function<void()>& launch_once, const protocol::Timing& timing,
                    protocol::MeasureReply& reply) = 0;
};

// Paired rounds of candidates that passed their check (an empty function: one that did not, timed
// as -1): untimed rounds until the settling time (the reference's when there is one, else the
// first runnable candidate's) moves by under 2 % and the SM clock by under 1 % (at least 3, at
// most 40: clocks and power settle), then `rounds` rounds, each timing every candidate and the
// reference `reps` times from a flushed L2 (median kept; back to back, no flush, when `flush_l2` is
// false) in an order rotated from round to round. Fills the reply's round fields, warmup_rounds and
// outcome ("ok"); round_reference_ms is -1 without a reference. Throws CudaError as Host::time
// does.
void run_paired_rounds(Host& host, const std::vector<std::function<void()>>& launches,
                       const std::function<void()>& reference, int rounds, int reps,
                       protocol::MeasureReply& reply, bool flush_l2 = true);

// One op of the worker, with the state it keeps between requests (inputs, references).
class Mode {
 public:
  virtual ~Mode() = default;
  virtual protocol::MeasureReply measure(const nlohmann::json& request) = 0;
};

// The mode of family `family`, made for `host`; nullptr when this worker has none. Defined by the
// generated table; each family's mode is cutune::cuda::worker::families::NAME(Host&).
std::unique_ptr<Mode> make_family_mode(const std::string& family, Host& host);

}  // namespace cutune::cuda::worker
