// The CPU worker's state (cutune-cpu-worker, worker_main.cpp): the current problem's buffers, each
// between two poisoned guards, and a call shim's arguments (worker_buffers.cpp); a request's checks
// and timing (worker_measure.cpp); the cache eviction before a timed run (cache_flusher.cpp).
// Candidates run in this process, so nothing here survives a crash: the tuner starts a new worker.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol.hpp"

namespace cutune::cpu {

namespace proto = protocol;

using Clock = std::chrono::steady_clock;
using Entry = void (*)(void**, const std::int64_t*);

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Every buffer sits between two guard regions filled with kPoison: a kernel that writes before
// the start or past the end of a buffer changes them, and is wrong however fast it is.
constexpr std::size_t kGuardBytes = 4096;
constexpr std::byte kPoison{0xcb};

struct Buffer {
  proto::Buffer spec;
  std::size_t bytes = 0;  // count * element size: the trailing guard starts right after
  std::unique_ptr<std::byte, decltype(&std::free)> storage{nullptr, &std::free};
  std::byte* data = nullptr;         // storage + kGuardBytes
  std::vector<std::byte> pristine;   // inputs and inouts: the values every run starts from
  std::vector<std::byte> reference;  // outputs and inouts: what the reference kernel left
};

// Evicts the kernel's buffers from every cache level before a timed run, so that each run starts
// from memory as the kernel would in a real program. On x86-64 the buffers' own lines are flushed
// (clflush): the cost follows the buffers, not the cache size. Elsewhere a buffer twice the size
// of the last-level cache is written over.
class CacheFlusher {
 public:
  void flush(const std::vector<Buffer>& buffers);

 private:
#if !defined(__x86_64__)
  struct alignas(64) Line {
    char bytes[64];
  };
  static std::size_t flush_bytes();
  std::vector<Line> lines_;
#endif
};

class Worker {
 public:
  // A candidate's failure is the reply's. Throws std::invalid_argument for an element type the
  // worker has none of, std::runtime_error when the problem's buffers cannot be allocated or its
  // reference kernel fails to load or writes outside its buffers.
  proto::MeasureReply measure(const proto::MeasureRequest& request);
  proto::RoundsReply rounds(const proto::RoundsRequest& request);

 private:
  struct Loaded {
    std::shared_ptr<void> handle;
    Entry entry = nullptr;
    explicit operator bool() const { return entry != nullptr; }
  };

  // Checking and timing (worker_measure.cpp).

  // Loads a kernel and, when there is a reference, runs it once and compares its outputs. An
  // empty Loaded means the reply says why it failed; otherwise the reply's outcome is "ok".
  Loaded check(const proto::Kernel& kernel, const proto::MeasureRequest& request,
               proto::MeasureReply& reply);
  // One paired round: each loaded candidate, starting at a rotating place, `reps` runs (the
  // median kept); -1 for a candidate that did not load or failed its check. A candidate wrong
  // after any run is wrong for good: its check says so and it runs in no later round.
  std::vector<double> round(std::vector<Loaded>& loaded, const proto::RoundsRequest& request,
                            int index, proto::RoundsReply& reply);
  // One timed run from fresh buffers (inputs restored, outputs poisoned), then verified: a kernel
  // that is wrong only on some calls, or writes outside its buffers, is caught on the run it does
  // so. Empty, with the reply's outcome "wrong_result" and why, when the run was wrong.
  std::optional<double> checked_run(Entry entry, const proto::MeasureRequest& request,
                                    proto::MeasureReply& reply, double& kernel_ms,
                                    double& flush_ms);
  // One call of a kernel, from a flushed cache when the timing asks for one.
  double timed_run(Entry entry, const proto::MeasureRequest& request, double& kernel_ms,
                   double& flush_ms);
  void time(Entry entry, const proto::MeasureRequest& request, proto::MeasureReply& reply);
  static Loaded load(const proto::Kernel& kernel, proto::MeasureReply& reply);

  // The problem's buffers (worker_buffers.cpp).

  // Allocates and fills the buffers, and runs the reference, when the problem changed.
  void prepare(const proto::MeasureRequest& request);
  // A call shim's arguments: a slot per parameter holding its value, the buffers' pointers
  // included, and a pointer to each slot.
  void prepare_arguments(const std::vector<proto::Argument>& arguments);
  // What an entry takes first: the buffers' pointers (the fixed ABI) or the shim's arguments.
  void** first_argument();
  // Inputs and inouts back to their seeded values (a candidate may have written them), outputs
  // poisoned, scratch zeroed.
  void reset_buffers();
  // Empty when every guard still holds its poison and (with a reference) every output and inout
  // is within tolerance; otherwise why not (naming request.reference_name). `error` takes the
  // largest relative error seen.
  std::string verify(const proto::MeasureRequest& request, double& error) const;
  // The first guard a kernel wrote over, named; empty when all hold their poison.
  std::string damaged_guard() const;

  nlohmann::json prepared_key_;
  std::vector<Buffer> buffers_;
  std::vector<void*> pointers_;
  std::vector<std::array<std::byte, 8>> slots_;  // a call shim's argument values
  std::vector<void*> argument_pointers_;
  CacheFlusher flusher_;
};

}  // namespace cutune::cpu
