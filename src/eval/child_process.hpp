// Child processes for compilers and workers: pipes, a deadline on every read, and a kill that
// reaches the whole process group (a compiler driver starts cc1plus and as; a worker may have
// started threads or children of its own).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "starvation.hpp"

namespace cutune::eval {

using Clock = std::chrono::steady_clock;

struct ExitStatus {
  bool exited = false;  // false: killed by a signal
  int code = 0;         // exit code, or the signal number
  bool success() const { return exited && code == 0; }
  // "exit code 3", "SIGSEGV (Segmentation fault)"
  std::string describe() const;
};

// "SIGSEGV (Segmentation fault)" for 11; "signal 99" for numbers the C library does not know.
std::string signal_name(int signal);

class ChildProcess {
 public:
  struct Options {
    bool pipe_stdin = false;
    // Where stderr goes; empty: into the same pipe as stdout.
    std::filesystem::path stderr_file;
  };
  enum class Read { line, timeout, eof };

  // Starts argv[0] (searched in PATH) in a process group of its own, with default signal
  // handling. Throws std::system_error when it cannot be started.
  ChildProcess(const std::vector<std::string>& argv, const Options& options);
  ~ChildProcess();  // kills and reaps a child that is still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // False when the child no longer reads its stdin (it died or closed it).
  bool write_all(std::string_view data);
  void close_stdin();
  // One line of stdout without its newline. At eof, `line` holds what came after the last one.
  Read read_line(std::string& line, Clock::time_point deadline);
  // Everything the child writes until it closes stdout; at timeout `out` keeps what arrived.
  Read read_to_end(std::string& out, Clock::time_point deadline);
  void kill_group();
  ExitStatus wait();
  std::optional<ExitStatus> wait_until(Clock::time_point deadline);

 private:
  bool fill(Clock::time_point deadline, bool& eof);
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string buffer_;
  std::optional<ExitStatus> status_;
};

struct RunResult {
  ExitStatus status;
  bool timed_out = false;
  Starvation starvation;  // when timed out: whether other work on the machine starved it
  std::string output;     // stdout and stderr together
  double wall_s = 0;
};

// Runs argv to completion with no input; past `limit` the whole process group is killed.
RunResult run_with_limit(const std::vector<std::string>& argv, std::chrono::milliseconds limit);

}  // namespace cutune::eval
