// Small pieces every compiling backend (CPU, CUDA) needs alike: where its on-disk cache lives and
// how much of a compiler log a measurement keeps, how a batch is spread over worker slots.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace cutune::eval {

// $XDG_CACHE_HOME/cutune/<backend> (when absolute), else ~/.cache/cutune/<backend> (/tmp when
// HOME is unset).
inline std::filesystem::path default_cache_dir(std::string_view backend) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::filesystem::path(xdg) / "cutune" / backend;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/tmp") / ".cache" / "cutune" / backend;
}

// The first 4000 characters of a compiler log, with a note of how many more there were.
inline std::string log_excerpt(const std::string& log) {
  constexpr std::size_t kept = 4000;
  if (log.size() <= kept) return log;
  return log.substr(0, kept) + "\n[... " + std::to_string(log.size() - kept) + " more characters]";
}

// What a measurement keeps of a failed compile: the log's excerpt, and where the full log is when
// it was kept; a log served from the cache says so (a stale entry is then the file to delete).
inline std::string compile_failure_detail(const std::string& log,
                                          const std::filesystem::path& log_file,
                                          bool cached = false) {
  std::string detail = log_excerpt(log);
  if (cached) {
    detail += "\n(cached compile error: " + log_file.string() + "; delete it to compile again)";
  } else if (!log_file.empty()) {
    detail += "\n(full log: " + log_file.string() + ")";
  }
  return detail;
}

// Runs work(slot, i) for every i in [0, count) on `slots` threads (slot 0 is the calling thread),
// each taking the next i as it finishes one. After an exception no further i starts; the first
// one is rethrown once every thread has finished.
template <class Work>
void for_each_on_slots(std::size_t slots, std::size_t count, Work&& work) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto drain = [&](std::size_t slot) {
    try {
      for (std::size_t i; (i = next++) < count;) work(slot, i);
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t slot = 1; slot < slots; ++slot) threads.emplace_back(drain, slot);
  drain(0);
  for (auto& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cutune::eval
