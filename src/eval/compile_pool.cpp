#include "compile_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <fstream>
#include <string_view>
#include <system_error>

#include "child_process.hpp"
#include "files.hpp"
#include "hash/content_hash.hpp"

namespace cutune::eval {
namespace {

// What a cache entry was made from, written beside it: a file whose name matches but whose key does
// not (a collision, a stale or planted file) is a miss, never a wrong object.
std::string entry_key(const CompileRequest& request) {
  return request.key + '\n' + request.extension;
}

std::filesystem::path key_file_of(const std::filesystem::path& entry) {
  auto path = entry;
  path += ".key";
  return path;
}

bool holds_entry(const std::filesystem::path& entry, const std::string& key) {
  std::error_code error;
  if (!std::filesystem::exists(entry, error)) return false;
  try {
    return read_file(key_file_of(entry)) == key;
  } catch (const std::system_error&) {
    return false;  // no key beside it: not an entry this cache can vouch for
  }
}

// The key goes first, so that a reader who finds the entry finds the key it was made from.
void publish(const std::filesystem::path& from, const std::filesystem::path& entry,
             const std::string& key) {
  write_atomically(key_file_of(entry), key);
  std::filesystem::rename(from, entry);
}

void publish_text(const std::string& text, const std::filesystem::path& entry,
                  const std::string& key) {
  write_atomically(key_file_of(entry), key);
  write_atomically(entry, text);
}

// What compilers, linkers and their drivers print when the machine, not the source, stopped them
// (strerror texts of ENOSPC, EFBIG, EDQUOT, ENOMEM, EAGAIN; gcc's and collect2's words for a
// child killed by a signal).
constexpr std::array<std::string_view, 9> kTransientWords{
    "No space left on device",   "File too large",         "Disk quota exceeded",
    "Cannot allocate memory",    "out of memory",          "virtual memory exhausted",
    "signal terminated program", "terminated with signal", "Resource temporarily unavailable",
};

// The first of the request's inputs whose bytes are not those its key names, with why; empty when
// every one matches.
std::string changed_input(const CompileRequest& request) {
  for (const auto& [path, expected] : request.inputs) {
    try {
      if (hash::content_hash(read_file(path)).hex() != expected) {
        return path.string() + " changed: its bytes are no longer those the tune started from";
      }
    } catch (const std::system_error& error) {
      return path.string() + " can no longer be read (" + error.what() + ")";
    }
  }
  return {};
}

}  // namespace

bool reads_as_transient(const std::string& log) {
  return std::any_of(kTransientWords.begin(), kTransientWords.end(),
                     [&](std::string_view words) { return log.find(words) != std::string::npos; });
}

CompilePool::CompilePool(std::filesystem::path cache_dir, unsigned jobs)
    : cache_dir_(std::move(cache_dir)) {
  std::filesystem::create_directories(cache_dir_);
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < jobs; ++i) threads_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  threads_.clear();  // joins; queued tasks are finished first
}

std::shared_future<CompileResult> CompilePool::submit(CompileRequest request) {
  auto hash = hash::content_hash(entry_key(request)).hex();
  std::lock_guard lock(mutex_);
  if (auto found = in_flight_.find(hash); found != in_flight_.end()) return found->second;
  Task task{std::move(request), hash, {}};
  auto future = task.promise.get_future().share();
  in_flight_.emplace(hash, future);
  queue_.push_back(std::move(task));
  ready_.notify_one();
  return future;
}

std::vector<CompileResult> CompilePool::compile(std::span<const CompileRequest> requests) {
  std::vector<std::shared_future<CompileResult>> futures;
  futures.reserve(requests.size());
  for (const auto& request : requests) futures.push_back(submit(request));
  std::vector<CompileResult> results;
  results.reserve(futures.size());
  for (auto& future : futures) results.push_back(future.get());
  return results;
}

void CompilePool::work() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    CompileResult result = run(task.request, task.hash);
    {
      std::lock_guard lock(mutex_);
      in_flight_.erase(task.hash);
    }
    task.promise.set_value(std::move(result));
  }
}

// Held while one compile runs: side by side with others, or alone (none other running, and none
// starting until it ends).
class CompilePool::Turn {
 public:
  Turn(const CompilePool& pool, bool alone) : pool_(pool), alone_(alone) {
    std::unique_lock lock(pool_.turn_mutex_);
    if (alone_) {
      ++pool_.alone_wanted_;
      pool_.turn_changed_.wait(lock, [&] { return pool_.sharing_ == 0 && !pool_.alone_running_; });
      pool_.alone_running_ = true;
    } else {
      pool_.turn_changed_.wait(lock, [&] { return pool_.alone_wanted_ == 0; });
      ++pool_.sharing_;
    }
  }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  ~Turn() {
    std::lock_guard lock(pool_.turn_mutex_);
    if (alone_) {
      pool_.alone_running_ = false;
      --pool_.alone_wanted_;
    } else {
      --pool_.sharing_;
    }
    pool_.turn_changed_.notify_all();
  }

 private:
  const CompilePool& pool_;
  bool alone_;
};

CompileResult CompilePool::run(const CompileRequest& request, const std::string& hash) const {
  CompileResult result;
  double wall_s = 0;
  bool alone = false;
  CompileRequest attempt_request = request;  // a retry after starvation gets a longer limit
  for (int attempt = 0;; ++attempt) {
    try {
      const Turn turn(*this, alone);
      result = run_once(attempt_request, hash);
    } catch (const std::exception& error) {
      // Reading or publishing an entry failed (a full or vanished cache folder): not the source's.
      result = {};
      result.status = CompileResult::Status::transient;
      result.key_hash = hash;
      result.log = error.what();
    }
    wall_s += result.wall_s;
    result.wall_s = wall_s;
    result.tries = attempt + 1;
    // A stretched try that got the first limit's worth of CPU ran long enough to be judged.
    const bool under_load =
        result.status == CompileResult::Status::timeout && result.starvation.starved &&
        result.starvation.cpu_s < 0.5 * std::chrono::duration<double>(request.limit).count();
    if (result.status == CompileResult::Status::timeout) result.starvation.starved = under_load;
    if (under_load && attempt >= request.retries) {
      result.status = CompileResult::Status::transient;
      result.log = "the compiler was killed at its limit " + std::to_string(result.tries) +
                   " times while other work starved it (the last time " + result.starvation.detail +
                   ")\n" + result.log;
      break;
    }
    if (!under_load &&
        (result.status != CompileResult::Status::transient || attempt >= request.retries)) {
      break;
    }
    alone = under_load;
    if (under_load) {
      attempt_request.limit = std::chrono::milliseconds(static_cast<long long>(
          static_cast<double>(request.limit.count()) * result.starvation.stretch));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250) * (attempt + 1));
  }
  return result;
}

CompileResult CompilePool::run_once(const CompileRequest& request, const std::string& hash) const {
  CompileResult result;
  result.key_hash = hash;
  auto output = cache_dir_ / (hash + request.extension);
  auto error_log = cache_dir_ / (hash + ".error.log");
  const std::string key = entry_key(request);
  if (holds_entry(output, key)) {
    result.output = output;
    result.cached = true;
    return result;
  }
  if (holds_entry(error_log, key)) {
    std::string log = read_file(error_log);
    // An older cutune cached the machine's trouble as the source's error: compile again.
    if (!log.empty() && !reads_as_transient(log)) {
      result.status = CompileResult::Status::error;
      result.log = std::move(log);
      result.log_file = error_log;
      result.cached = true;
      return result;
    }
  }

  if (std::string changed = changed_input(request); !changed.empty()) {
    result.status = CompileResult::Status::input_changed;
    result.log = std::move(changed);
    return result;
  }
  auto tmp = temporary_path(output);
  std::vector<std::string> argv;
  argv.reserve(request.command.size());
  for (auto arg : request.command) {
    for (auto at = arg.find("{output}"); at != std::string::npos; at = arg.find("{output}")) {
      arg.replace(at, 8, tmp.string());
    }
    argv.push_back(std::move(arg));
  }
  auto run = run_with_limit(argv, request.limit);
  result.wall_s = run.wall_s;
  result.log = std::move(run.output);
  std::error_code ignored;
  // Read again now that the compiler is done: what it read may not be what the key names.
  if (std::string changed = changed_input(request); !changed.empty()) {
    std::filesystem::remove(tmp, ignored);
    result.status = CompileResult::Status::input_changed;
    result.log = std::move(changed);
    return result;
  }
  if (run.timed_out) {
    std::filesystem::remove(tmp, ignored);
    result.status = CompileResult::Status::timeout;
    result.starvation = run.starvation;
    return result;
  }
  if (!run.status.success() || !std::filesystem::exists(tmp)) {
    std::filesystem::remove(tmp, ignored);
    // Only the compiler's own verdict is deterministic: a compiler killed by a signal, one that
    // names the machine's trouble, or one that fails without a word is not cached.
    const bool verdict =
        run.status.exited && !result.log.empty() && !reads_as_transient(result.log);
    result.status = verdict ? CompileResult::Status::error : CompileResult::Status::transient;
    if (result.log.empty()) result.log = argv.front() + " ended with " + run.status.describe();
    if (verdict) {
      try {
        publish_text(result.log, error_log, key);
        result.log_file = error_log;
      } catch (const std::system_error&) {
        // The verdict stands; only its cache entry is lost (a full cache folder).
      }
    }
    return result;
  }
  try {
    publish(tmp, output, key);
  } catch (...) {
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  result.output = output;
  return result;
}

}  // namespace cutune::eval
