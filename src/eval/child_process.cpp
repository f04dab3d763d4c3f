#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

extern char** environ;

namespace cutune::eval {
namespace {

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

ExitStatus decode(int raw) {
  if (WIFEXITED(raw)) return {true, WEXITSTATUS(raw)};
  return {false, WTERMSIG(raw)};
}

}  // namespace

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  if (abbrev == nullptr) return "signal " + std::to_string(signal);
  return std::string("SIG") + abbrev + " (" + sigdescr_np(signal) + ")";
}

std::string ExitStatus::describe() const {
  if (exited) return "exit code " + std::to_string(code);
  return signal_name(code);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const Options& options) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty command line");
  int out_pipe[2];
  int in_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno(errno, "pipe for " + argv[0]);
  if (options.pipe_stdin && ::pipe2(in_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw_errno(error, "pipe for " + argv[0]);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.pipe_stdin) {
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  if (options.stderr_file.empty()) {
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDERR_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, options.stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }

  // The child gets default signal handling and an empty mask whatever this thread uses, and a
  // process group of its own so that one kill reaches everything it started.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int error = posix_spawnp(&pid_, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);

  ::close(out_pipe[1]);
  stdout_fd_ = out_pipe[0];
  if (options.pipe_stdin) {
    ::close(in_pipe[0]);
    stdin_fd_ = in_pipe[1];
  }
  if (error != 0) {
    close_fd(stdout_fd_);
    close_fd(stdin_fd_);
    pid_ = -1;
    throw_errno(error, "cannot start " + argv[0]);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !status_) {
    kill_group();
    wait();
  }
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
}

bool ChildProcess::write_all(std::string_view data) {
  if (stdin_fd_ < 0) return false;
  // A child that died leaves a closed pipe: block SIGPIPE in this thread and take EPIPE as the
  // answer, without touching the process-wide disposition the host program chose.
  sigset_t pipe_set, previous;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &previous);
  bool ok = true;
  while (!data.empty()) {
    ssize_t n = ::write(stdin_fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno == EPIPE) {
        timespec zero{};
        sigtimedwait(&pipe_set, nullptr, &zero);  // consume the pending SIGPIPE
      }
      ok = false;
      break;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

void ChildProcess::close_stdin() { close_fd(stdin_fd_); }

bool ChildProcess::fill(Clock::time_point deadline, bool& eof) {
  eof = false;
  if (stdout_fd_ < 0) {
    eof = true;
    return true;
  }
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  // Round up so that a deadline less than a millisecond away still waits instead of spinning.
  long long wait_ms = std::max<long long>(left.count() + 1, 0);
  pollfd fd{stdout_fd_, POLLIN, 0};
  int ready = ::poll(&fd, 1, static_cast<int>(std::min<long long>(wait_ms, INT_MAX)));
  if (ready < 0 && errno == EINTR) return true;
  if (ready < 0) throw_errno(errno, "poll on a child's output");
  if (ready == 0) return Clock::now() < deadline;
  char chunk[65536];
  ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) {
    close_fd(stdout_fd_);
    eof = true;
    return true;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

ChildProcess::Read ChildProcess::read_line(std::string& line, Clock::time_point deadline) {
  for (;;) {
    auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      line.assign(buffer_, 0, newline);
      buffer_.erase(0, newline + 1);
      return Read::line;
    }
    bool eof = false;
    if (!fill(deadline, eof)) return Read::timeout;
    if (eof) {
      line = std::move(buffer_);
      buffer_.clear();
      return Read::eof;
    }
  }
}

ChildProcess::Read ChildProcess::read_to_end(std::string& out, Clock::time_point deadline) {
  for (;;) {
    bool eof = false;
    bool progressed = fill(deadline, eof);
    out += buffer_;
    buffer_.clear();
    if (eof) return Read::eof;
    if (!progressed) return Read::timeout;
  }
}

void ChildProcess::kill_group() {
  if (pid_ > 0 && !status_) ::kill(-pid_, SIGKILL);
}

ExitStatus ChildProcess::wait() {
  if (status_) return *status_;
  int raw = 0;
  while (::waitpid(pid_, &raw, 0) < 0) {
    if (errno != EINTR) throw_errno(errno, "waitpid");
  }
  status_ = decode(raw);
  // Grandchildren (cc1plus under c++) must not outlive a killed or finished child.
  ::kill(-pid_, SIGKILL);
  return *status_;
}

std::optional<ExitStatus> ChildProcess::wait_until(Clock::time_point deadline) {
  for (;;) {
    if (status_) return status_;
    int raw = 0;
    pid_t got = ::waitpid(pid_, &raw, WNOHANG);
    if (got == pid_) {
      status_ = decode(raw);
      ::kill(-pid_, SIGKILL);
      return status_;
    }
    if (got < 0 && errno != EINTR) throw_errno(errno, "waitpid");
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

RunResult run_with_limit(const std::vector<std::string>& argv, std::chrono::milliseconds limit) {
  auto start = Clock::now();
  const StarvationProbe probe;
  ChildProcess child(argv, {});
  RunResult result;
  if (child.read_to_end(result.output, start + limit) == ChildProcess::Read::timeout) {
    result.timed_out = true;
    // Before the kill, while the group's processes are there to be read.
    result.starvation =
        probe.judge(group_cpu_seconds(child.pid()), std::chrono::duration<double>(limit).count(),
                    group_wait_seconds(child.pid()));
    child.kill_group();
  }
  result.status = child.wait();
  result.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace cutune::eval
