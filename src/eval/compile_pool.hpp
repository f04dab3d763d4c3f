// A pool of compile jobs with an on-disk cache. Generic over the compiler: a job is a command line
// with an "{output}" placeholder and a key naming everything the output depends on (source text,
// flags, compiler version, target). The pool runs up to `jobs` compiles at once, each a child
// process killed at its time limit, and serves repeated keys from the cache folder:
//
//   <cache>/<hash><extension>   a finished output, published by an atomic rename, so readers and
//                               other tuner processes never see a half-written file
//   <cache>/<hash>.error.log    the compiler's output for a source that failed to compile; a
//                               compile error is deterministic, so the key is not compiled again
//                               (a result served from it says `cached` and names the file)
//   <entry>.key                 the key each entry was made from, written before the entry; an
//                               entry is served only when its key equals the request's, so a
//                               collision or a stale or planted file is a miss, never a wrong
//                               object
//
// <hash> is the XXH3-128 of the key and extension (hash/content_hash.hpp).
// A timeout is not cached (the machine may only have been busy). A timeout under load (the
// compiler starved of CPU by other work, eval/starvation.hpp) is no verdict either: it is tried
// again, with no other compile of this pool running and a limit stretched by its starvation (up to
// twice as long), up to `retries` times, and returned as `transient` if it persists; a timeout of
// a compiler that got its limit in CPU is `timeout`.
// Nor is a transient failure cached: a compiler killed by a signal from outside, one that reports
// the machine's trouble (no space left, file too large, out of memory, a child killed) or exits
// non-zero in silence, and an output that cannot be published (a full cache folder). A transient
// failure is retried `retries` times, after a short pause each, before it is returned as
// `transient`. An error log already in the cache that reads as transient (written by an older
// cutune) is not served.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "starvation.hpp"

namespace cutune::eval {

struct CompileRequest {
  std::vector<std::string> command;  // argv; every "{output}" is replaced by the output path
  std::string key;                   // all the output depends on; hashed to name the cache entry
  std::string extension = ".so";
  std::chrono::milliseconds limit{60'000};
  int retries = 2;  // more tries after a transient failure
  // Files the compiler reads, each with the content hash (content_hash(bytes).hex()) of the bytes
  // the key was built from. Checked before and after the compile: a file edited meanwhile fails
  // the request as `input_changed` (nothing cached), so no object is ever filed under a key that
  // names other bytes than it was compiled from.
  std::vector<std::pair<std::filesystem::path, std::string>> inputs{};
};

struct CompileResult {
  enum class Status { ok, error, timeout, transient, input_changed };
  Status status = Status::ok;
  std::filesystem::path output;  // the cached output when ok
  std::string log;  // compiler output (kept for errors and timeouts); input_changed: which file
  std::filesystem::path log_file;  // where an error's log is kept in the cache
  std::string key_hash;            // 32 hex digits
  double wall_s = 0;               // time spent compiling; 0 when served from the cache
  bool cached = false;
  int tries = 1;  // compiles run for this result (more than one after transient failures)
  // timeout: whether other work starved the compiler, and the figures that say so
  Starvation starvation;
};

// Whether a compiler's output reads as the machine's trouble rather than the source's: no space,
// a file size limit, no memory, a compiler child killed. Exposed for tests.
bool reads_as_transient(const std::string& log);

class CompilePool {
 public:
  // Creates the cache folder when missing. jobs == 0 means one per core.
  CompilePool(std::filesystem::path cache_dir, unsigned jobs = 0);
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Queues one compile; a key already queued or running shares its result.
  std::shared_future<CompileResult> submit(CompileRequest request);
  // Compiles a batch in parallel and waits for all of it; results in request order.
  std::vector<CompileResult> compile(std::span<const CompileRequest> requests);

  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  unsigned jobs() const { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Task {
    CompileRequest request;
    std::string hash;
    std::promise<CompileResult> promise;
  };
  void work();
  CompileResult run(const CompileRequest& request, const std::string& hash) const;
  CompileResult run_once(const CompileRequest& request, const std::string& hash) const;

  std::filesystem::path cache_dir_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> queue_;
  std::map<std::string, std::shared_future<CompileResult>> in_flight_;
  bool stopping_ = false;
  // Compiles take turns with a retry that must run alone (after a timeout under load).
  class Turn;
  mutable std::mutex turn_mutex_;
  mutable std::condition_variable turn_changed_;
  mutable unsigned sharing_ = 0;       // compiles running side by side
  mutable unsigned alone_wanted_ = 0;  // retries waiting to run alone, or running
  mutable bool alone_running_ = false;
  std::vector<std::jthread> threads_;
};

}  // namespace cutune::eval
