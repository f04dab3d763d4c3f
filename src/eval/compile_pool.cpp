#include "compile_pool.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
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

}  // namespace

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
    CompileResult result;
    try {
      result = run(task.request, task.hash);
    } catch (const std::exception& error) {
      result.status = CompileResult::Status::error;
      result.key_hash = task.hash;
      result.log = error.what();
    }
    {
      std::lock_guard lock(mutex_);
      in_flight_.erase(task.hash);
    }
    task.promise.set_value(std::move(result));
  }
}

CompileResult CompilePool::run(const CompileRequest& request, const std::string& hash) const {
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
    result.status = CompileResult::Status::error;
    result.log = read_file(error_log);
    result.log_file = error_log;
    result.cached = true;
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
  if (run.timed_out) {
    std::filesystem::remove(tmp, ignored);
    result.status = CompileResult::Status::timeout;
    return result;
  }
  if (!run.status.success() || !std::filesystem::exists(tmp)) {
    std::filesystem::remove(tmp, ignored);
    result.status = CompileResult::Status::error;
    if (result.log.empty()) result.log = argv.front() + " ended with " + run.status.describe();
    // Only the compiler's own verdict is deterministic; a compiler killed by a signal is not.
    if (run.status.exited) {
      publish_text(result.log, error_log, key);
      result.log_file = error_log;
    }
    return result;
  }
  publish(tmp, output, key);
  result.output = output;
  return result;
}

}  // namespace cutune::eval
