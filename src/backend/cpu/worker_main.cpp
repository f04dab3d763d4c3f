// cutune-cpu-worker: loads candidate kernels (shared objects) and checks and times them, one
// request per line on stdin, one reply per line on stdout (protocol.hpp). Candidates run in this
// process: a crash or a hang ends it, and the tuner starts a new one.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cutune/timing_summary.hpp"
#include "eval/reply_tag.hpp"
#include "protocol.hpp"

namespace cutune::cpu {
namespace {

using Clock = std::chrono::steady_clock;
using Entry = void (*)(void**, const std::int64_t*);
namespace proto = protocol;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::size_t element_size(const std::string& type) {
  if (const std::size_t size = proto::element_size(type); size > 0) return size;
  throw std::invalid_argument("the cpu worker has no element type '" + type + "'");
}

// splitmix64: the same seed gives the same inputs on every machine.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
void fill_random(T* data, std::uint64_t count, std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t bits = next_random(state);
    if constexpr (std::is_floating_point_v<T>) {
      // Magnitudes in [0.1, 1) with either sign: never zero, so a missing term shows.
      double magnitude = 0.1 + 0.9 * static_cast<double>(bits >> 11) * 0x1.0p-53;
      data[i] = static_cast<T>((bits & 1) ? -magnitude : magnitude);
    } else {
      data[i] = static_cast<T>(1 + (bits >> 1) % 15);
    }
  }
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
  std::vector<std::byte> pristine;   // inputs: the values every run starts from
  std::vector<std::byte> reference;  // outputs: what the reference kernel wrote
};

template <typename F>
auto by_type(const std::string& type, F&& f) {
  if (type == "f64") return f(double{});
  if (type == "f32") return f(float{});
  if (type == "i32") return f(std::int32_t{});
  if (type == "i64") return f(std::int64_t{});
  if (type == "u8") return f(std::uint8_t{});
  return f(std::uint32_t{});
}

// Normwise relative error max|x - r| / max|r| (absolute when the reference is all zero);
// infinity when x holds a NaN or an infinity.
double relative_error(const Buffer& buffer) {
  return by_type(buffer.spec.type, [&](auto zero) {
    using T = decltype(zero);
    const T* x = reinterpret_cast<const T*>(buffer.data);
    const T* r = reinterpret_cast<const T*>(buffer.reference.data());
    double diff = 0, scale = 0;
    for (std::uint64_t i = 0; i < buffer.spec.count; ++i) {
      double xi = static_cast<double>(x[i]), ri = static_cast<double>(r[i]);
      if (!std::isfinite(xi)) return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::abs(xi - ri));
      scale = std::max(scale, std::abs(ri));
    }
    return scale > 0 ? diff / scale : diff;
  });
}

// Evicts the kernel's buffers from every cache level before a timed run, so that each run starts
// from memory as the kernel would in a real program. On x86-64 the buffers' own lines are flushed
// (clflush): the cost follows the buffers, not the cache size. Elsewhere a buffer twice the size
// of the last-level cache is written over.
class CacheFlusher {
 public:
  template <typename Buffers>
  void flush(const Buffers& buffers) {
#if defined(__x86_64__)
    for (const auto& buffer : buffers) {
      const char* bytes = reinterpret_cast<const char*>(buffer.data);
      for (std::size_t at = 0; at < buffer.bytes; at += 64) __builtin_ia32_clflush(bytes + at);
    }
    __builtin_ia32_mfence();
#else
    (void)buffers;
    if (lines_.empty()) lines_.assign(flush_bytes() / sizeof(Line), Line{});
    for (auto& line : lines_) line.bytes[0] = static_cast<char>(line.bytes[0] + 1);
#endif
  }

 private:
#if !defined(__x86_64__)
  struct alignas(64) Line {
    char bytes[64];
  };
  static std::size_t flush_bytes() {
    std::size_t llc = 32u << 20;
    std::ifstream size_file("/sys/devices/system/cpu/cpu0/cache/index3/size");
    std::string text;
    if (size_file >> text && !text.empty()) {
      std::size_t value = std::stoul(text);
      if (text.back() == 'K') value <<= 10;
      if (text.back() == 'M') value <<= 20;
      if (value > 0) llc = value;
    }
    return std::min<std::size_t>(2 * llc, 256u << 20);
  }
  std::vector<Line> lines_;
#endif
};

class Worker {
 public:
  proto::MeasureReply measure(const proto::MeasureRequest& request) {
    auto start = Clock::now();
    proto::MeasureReply reply;
    reply.id = request.id;
    prepare(request);
    auto candidate = check(request.candidate, request, reply);
    if (candidate && request.time) time(candidate.entry, request, reply);
    return finish(reply, start);
  }

  proto::RoundsReply rounds(const proto::RoundsRequest& request) {
    auto start = Clock::now();
    const proto::MeasureRequest& base = request.base;
    proto::RoundsReply reply;
    reply.id = base.id;
    prepare(base);
    std::vector<Loaded> loaded;
    for (const proto::Kernel& kernel : request.candidates) {
      reply.checks.emplace_back();
      loaded.push_back(check(kernel, base, reply.checks.back()));
      reply.kernel_ms += reply.checks.back().kernel_ms;
    }
    // Untimed rounds until the first candidate's round time stops moving: the caches, the
    // branch predictors and the core's frequency are then where they stay for the timed rounds.
    double previous = -1;
    while (reply.warmup_rounds < request.max_warmup_rounds) {
      const std::vector<double> times = round(loaded, request, reply.warmup_rounds, reply);
      ++reply.warmup_rounds;
      const double now = times.empty() ? -1 : times.front();
      if (previous > 0 && now > 0 && std::abs(now - previous) <= request.settled * previous) break;
      previous = now;
    }
    for (int r = 0; r < request.rounds; ++r)
      reply.times_ms.push_back(round(loaded, request, r, reply));
    reply.worker_ms = ms_since(start);
    return reply;
  }

 private:
  struct Loaded {
    std::shared_ptr<void> handle;
    Entry entry = nullptr;
    explicit operator bool() const { return entry != nullptr; }
  };

  // Loads a kernel and, when there is a reference, runs it once and compares its outputs. An
  // empty Loaded means the reply says why it failed; otherwise the reply's outcome is "ok".
  Loaded check(const proto::Kernel& kernel, const proto::MeasureRequest& request,
               proto::MeasureReply& reply) {
    auto candidate = load(kernel, reply);
    if (!candidate) return candidate;
    reset_buffers();
    if (request.reference) {
      auto t0 = Clock::now();
      candidate.entry(first_argument(), request.scalars.data());
      reply.kernel_ms += ms_since(t0);
      reply.max_rel_error = 0;
      if (std::string why = verify(request, reply.max_rel_error); !why.empty()) {
        reply.outcome = "wrong_result";
        reply.detail = std::move(why);
        return {};
      }
    }
    reply.outcome = "ok";
    return candidate;
  }

  // Empty when every guard still holds its poison and (with a reference) every output is within
  // tolerance; otherwise why not. `error` takes the largest relative error seen.
  std::string verify(const proto::MeasureRequest& request, double& error) const {
    if (std::string damage = damaged_guard(); !damage.empty()) return damage;
    if (!request.reference) return {};
    for (const auto& buffer : buffers_) {
      if (buffer.spec.role != "output") continue;
      const double e = relative_error(buffer);
      if (!(e <= request.tolerance)) {
        error = std::isfinite(e) ? e : std::numeric_limits<double>::max();
        return std::isfinite(e) ? "output '" + buffer.spec.name + "' differs from the reference"
                                : "output '" + buffer.spec.name + "' holds NaN or infinity";
      }
      error = std::max(error, e);
    }
    return {};
  }

  // The first guard a kernel wrote over, named; empty when all hold their poison.
  std::string damaged_guard() const {
    for (const auto& buffer : buffers_) {
      const auto intact = [](const std::byte* guard) {
        return std::all_of(guard, guard + kGuardBytes, [](std::byte b) { return b == kPoison; });
      };
      if (!intact(buffer.storage.get())) {
        return "wrote before the start of buffer '" + buffer.spec.name + "'";
      }
      if (!intact(buffer.data + buffer.bytes)) {
        return "wrote past the end of buffer '" + buffer.spec.name + "'";
      }
    }
    return {};
  }

  // One paired round: each loaded candidate, starting at a rotating place, `reps` runs (the
  // median kept); -1 for a candidate that did not load or failed its check. A candidate wrong
  // after any run is wrong for good: its check says so and it runs in no later round.
  std::vector<double> round(std::vector<Loaded>& loaded, const proto::RoundsRequest& request,
                            int index, proto::RoundsReply& reply) {
    std::vector<double> times(loaded.size(), -1);
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      const std::size_t at = (i + static_cast<std::size_t>(index)) % loaded.size();
      if (!loaded[at]) continue;
      std::vector<double> runs;
      for (int rep = 0; rep < std::max(1, request.reps); ++rep) {
        const auto run = checked_run(loaded[at].entry, request.base, reply.checks[at],
                                     reply.kernel_ms, reply.flush_ms);
        if (!run) {
          reply.checks[at].detail += " in round " + std::to_string(index + 1);
          loaded[at] = {};
          break;
        }
        runs.push_back(*run);
      }
      if (loaded[at]) times[at] = summarize_timings(std::move(runs)).median_ms;
    }
    return times;
  }

  // One timed run from fresh buffers (inputs restored, outputs poisoned), then verified: a kernel
  // that is wrong only on some calls, or writes outside its buffers, is caught on the run it does
  // so. Empty, with the reply's outcome "wrong_result" and why, when the run was wrong.
  std::optional<double> checked_run(Entry entry, const proto::MeasureRequest& request,
                                    proto::MeasureReply& reply, double& kernel_ms,
                                    double& flush_ms) {
    reset_buffers();
    const double run = timed_run(entry, request, kernel_ms, flush_ms);
    if (std::string why = verify(request, reply.max_rel_error); !why.empty()) {
      reply.outcome = "wrong_result";
      reply.detail = std::move(why) + " after a timed run";
      return std::nullopt;
    }
    return run;
  }

  // One call of a kernel, from a flushed cache when the timing asks for one.
  double timed_run(Entry entry, const proto::MeasureRequest& request, double& kernel_ms,
                   double& flush_ms) {
    if (request.timing.flush_cache) {
      auto f0 = Clock::now();
      flusher_.flush(buffers_);
      flush_ms += ms_since(f0);
    }
    auto t0 = Clock::now();
    entry(first_argument(), request.scalars.data());
    const double run = ms_since(t0);
    kernel_ms += run;
    return run;
  }

  static proto::MeasureReply& finish(proto::MeasureReply& reply, Clock::time_point start) {
    reply.worker_ms = ms_since(start);
    return reply;
  }

  static Loaded load(const proto::Kernel& kernel, proto::MeasureReply& reply) {
    Loaded loaded;
    void* handle = ::dlopen(kernel.object.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      reply.outcome = "launch_error";
      reply.detail = std::string("dlopen: ") + ::dlerror();
      return loaded;
    }
    loaded.handle = std::shared_ptr<void>(handle, [](void* h) { ::dlclose(h); });
    loaded.entry = reinterpret_cast<Entry>(::dlsym(handle, kernel.entry.c_str()));
    if (loaded.entry == nullptr) {
      reply.outcome = "launch_error";
      reply.detail = "no symbol '" + kernel.entry + "' in " + kernel.object +
                     " (is it declared extern \"C\"?)";
    }
    return loaded;
  }

  // Allocates and fills the buffers, and runs the reference, when the problem changed.
  void prepare(const proto::MeasureRequest& request) {
    nlohmann::json key = {request.buffers, request.scalars, request.arguments, request.seed,
                          request.reference ? nlohmann::json(*request.reference) : nullptr};
    if (key == prepared_key_) return;
    prepared_key_ = nullptr;
    buffers_.clear();
    pointers_.clear();
    for (std::size_t i = 0; i < request.buffers.size(); ++i) {
      Buffer buffer;
      buffer.spec = request.buffers[i];
      buffer.bytes = buffer.spec.count * element_size(buffer.spec.type);
      const std::size_t total = (2 * kGuardBytes + buffer.bytes + 63) / 64 * 64;
      buffer.storage.reset(static_cast<std::byte*>(std::aligned_alloc(64, total)));
      if (!buffer.storage) {
        throw std::runtime_error("cannot allocate " + std::to_string(total) +
                                 " bytes for buffer '" + buffer.spec.name + "'");
      }
      std::fill_n(buffer.storage.get(), total, kPoison);
      buffer.data = buffer.storage.get() + kGuardBytes;
      if (buffer.spec.role == "input") {
        std::memset(buffer.data, 0, buffer.bytes);
        if (buffer.spec.fill != "zero") {
          by_type(buffer.spec.type, [&](auto zero) {
            using T = decltype(zero);
            fill_random(reinterpret_cast<T*>(buffer.data), buffer.spec.count,
                        request.seed * 0x100000001b3ull + i);
            return 0;
          });
        }
        buffer.pristine.assign(buffer.data, buffer.data + buffer.bytes);
      }
      pointers_.push_back(buffer.data);
      buffers_.push_back(std::move(buffer));
    }
    prepare_arguments(request.arguments);
    if (request.reference) {
      proto::MeasureReply ignored;
      auto reference = load(*request.reference, ignored);
      if (!reference) throw std::runtime_error("reference kernel: " + ignored.detail);
      reset_buffers();
      reference.entry(first_argument(), request.scalars.data());
      if (std::string damage = damaged_guard(); !damage.empty()) {
        throw std::runtime_error("reference kernel: " + damage);
      }
      for (auto& buffer : buffers_) {
        if (buffer.spec.role == "output") {
          buffer.reference.assign(buffer.data, buffer.data + buffer.bytes);
        }
      }
    }
    prepared_key_ = std::move(key);
  }

  // A call shim's arguments: a slot per parameter holding its value, the buffers' pointers
  // included, and a pointer to each slot.
  void prepare_arguments(const std::vector<proto::Argument>& arguments) {
    slots_.assign(arguments.size(), {});
    argument_pointers_.clear();
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      const proto::Argument& a = arguments[i];
      std::byte* slot = slots_[i].data();
      auto put = [&](auto value) { std::memcpy(slot, &value, sizeof value); };
      if (a.buffer >= 0) {
        put(pointers_.at(static_cast<std::size_t>(a.buffer)));
      } else if (a.type == "f32") {
        put(static_cast<float>(a.real));
      } else if (a.type == "f64") {
        put(a.real);
      } else if (a.type == "i32" || a.type == "u32") {
        put(static_cast<std::uint32_t>(a.integer));
      } else {
        put(a.integer);
      }
      argument_pointers_.push_back(slot);
    }
  }
  // What an entry takes first: the buffers' pointers (the fixed ABI) or the shim's arguments.
  void** first_argument() {
    return argument_pointers_.empty() ? pointers_.data() : argument_pointers_.data();
  }

  // Inputs back to their seeded values (a candidate may have written them), outputs poisoned,
  // scratch zeroed.
  void reset_buffers() {
    for (auto& buffer : buffers_) {
      // Guards poisoned afresh: a damage was reported for the run that did it, not the next one.
      std::fill_n(buffer.storage.get(), kGuardBytes, kPoison);
      std::fill_n(buffer.data + buffer.bytes, kGuardBytes, kPoison);
      if (buffer.spec.role == "input") {
        std::memcpy(buffer.data, buffer.pristine.data(), buffer.bytes);
      } else if (buffer.spec.role == "scratch") {
        std::memset(buffer.data, 0, buffer.bytes);
      } else if (buffer.spec.type == "f32" || buffer.spec.type == "f64") {
        by_type(buffer.spec.type, [&](auto zero) {
          using T = decltype(zero);
          std::fill_n(reinterpret_cast<T*>(buffer.data), buffer.spec.count,
                      std::numeric_limits<T>::quiet_NaN());
          return 0;
        });
      } else {
        std::memset(buffer.data, 0x7f, buffer.bytes);
      }
    }
  }

  void time(Entry entry, const proto::MeasureRequest& request, proto::MeasureReply& reply) {
    const auto& timing = request.timing;
    for (int i = 0; i < timing.warmup; ++i) {
      auto t0 = Clock::now();
      entry(first_argument(), request.scalars.data());
      reply.kernel_ms += ms_since(t0);
    }
    // The warm-up runs are not compared (they follow one another without a reset), but a write
    // outside the buffers in one of them is still there to see.
    if (std::string damage = damaged_guard(); !damage.empty()) {
      reply.outcome = "wrong_result";
      reply.detail = std::move(damage) + " in a warm-up run";
      return;
    }
    std::vector<double> runs;
    double total = 0;
    while (static_cast<int>(runs.size()) < timing.max_reps &&
           (static_cast<int>(runs.size()) < timing.min_reps || total < timing.budget_ms)) {
      const auto run = checked_run(entry, request, reply, reply.kernel_ms, reply.flush_ms);
      if (!run) return;  // wrong: no timing
      runs.push_back(*run);
      total += *run;
    }
    const TimingSummary summary = summarize_timings(std::move(runs));
    summary.copy_to(reply);
  }

  nlohmann::json prepared_key_;
  std::vector<Buffer> buffers_;
  std::vector<void*> pointers_;
  std::vector<std::array<std::byte, 8>> slots_;  // a call shim's argument values
  std::vector<void*> argument_pointers_;
  CacheFlusher flusher_;
};

int run() {
  // The protocol travels on private descriptors that nothing the kernel starts inherits (CLOEXEC):
  // requests on a copy of stdin (fd 0 becomes /dev/null, so a kernel that reads cannot take a
  // request), replies on a copy of stdout (fd 1 becomes stderr, so a kernel that prints goes to
  // the log). A kernel can still write into any descriptor of its process: each reply line is
  // tagged with its request's "seq", and the tuner takes any other line as the candidate's garbage.
  const int request_fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  const int protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (request_fd < 0 || protocol_fd < 0 || null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 ||
      ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::perror("cutune-cpu-worker: moving the protocol descriptors");
    return 2;
  }
  ::close(null_fd);
  std::FILE* requests = ::fdopen(request_fd, "r");
  std::FILE* replies = ::fdopen(protocol_fd, "w");
  Worker worker;
  char* buffer = nullptr;
  std::size_t capacity = 0;
  for (ssize_t got; (got = ::getline(&buffer, &capacity, requests)) > 0;) {
    const std::string line(buffer, static_cast<std::size_t>(got));
    if (line.find_first_not_of(" \n") == std::string::npos) continue;
    nlohmann::json reply;
    std::int64_t seq = -1;
    try {
      auto message = nlohmann::json::parse(line);
      seq = message.value("seq", std::int64_t{-1});
      auto op = message.value("op", std::string());
      if (op == "quit") break;
      if (op == "measure") {
        reply = worker.measure(message.get<proto::MeasureRequest>());
      } else if (op == "rounds") {
        reply = worker.rounds(message.get<proto::RoundsRequest>());
      } else {
        throw std::invalid_argument("unknown op '" + op + "'");
      }
    } catch (const std::exception& error) {
      // A request the worker cannot serve is the tuner's bug, not the candidate's: say so.
      reply = {{"outcome", "error"}, {"detail", error.what()}};
    }
    auto text = eval::reply_tag(seq) + reply.dump() + "\n";
    std::fwrite(text.data(), 1, text.size(), replies);
    std::fflush(replies);
  }
  std::free(buffer);
  return 0;
}

}  // namespace
}  // namespace cutune::cpu

// In a sanitizer build, a candidate's segfault must still end the worker with the signal, which
// is how the tuner names it, instead of a sanitizer report and exit code 1.
extern "C" __attribute__((used, visibility("default"))) const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0";
}

int main() { return cutune::cpu::run(); }
