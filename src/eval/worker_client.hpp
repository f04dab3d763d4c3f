// The tuner's side of a worker process: a program that reads one JSON request per line on stdin
// and writes one JSON reply per line on stdout. Every request has a watchdog; a worker that
// misses it is killed (its whole process group), a worker that dies is reaped and its signal
// named, and the next request starts a fresh worker. Workers write their stderr to a log file
// whose tail is attached to crash reports.
//
// A worker must keep its protocol stream clean: kernels it runs may print, so a worker should
// move its stdout to a private descriptor before loading them and point fd 1 at stderr. A worker
// that tags its replies (reply_tag.hpp; the constructor's `tagged`) is proof even against a kernel
// that writes into that descriptor: any other line is the candidate's garbage, and its verdict.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace cutune::eval {

struct WorkerReply {
  enum class Status {
    ok,       // `body` holds the reply
    timeout,  // the watchdog fired; the worker was killed
    died,     // the worker exited or was killed by a signal before replying
  };
  Status status = Status::ok;
  nlohmann::json body;
  std::string detail;     // timeout/died: what happened, with the tail of the worker's stderr
  double wall_ms = 0;     // from sending the request to the reply (or to the worker's end)
  int signal = 0;         // died: the signal that ended the worker; 0 when it exited
  Starvation starvation;  // timeout: whether other work on the machine starved the worker

  // Died by a signal that a kernel's own fault does not raise (SIGKILL, SIGTERM, SIGINT, SIGHUP):
  // sent from outside (a user, the OOM killer, a shutdown), so no verdict on the candidate.
  bool killed_from_outside() const;
};

// One request at a time: a client is not for sharing between threads (use one per worker).
class WorkerClient {
 public:
  // argv starts the worker; its stderr is appended to stderr_log (a temporary file when empty).
  // tagged: requests carry "seq" and the worker's replies start with reply_tag(seq).
  explicit WorkerClient(std::vector<std::string> argv, std::filesystem::path stderr_log = {},
                        bool tagged = false);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Sends one request and waits up to `limit` for its reply, starting the worker when none runs.
  // A reply that is not JSON counts as the worker dying (it broke the protocol) and stops it.
  WorkerReply request(const nlohmann::json& message, std::chrono::milliseconds limit);

  // Stops the worker (the next request starts a new one).
  void stop();
  bool running() const { return child_ != nullptr; }
  int starts() const { return starts_; }  // workers started so far (restarts + 1)

 private:
  std::string stderr_tail() const;
  std::vector<std::string> argv_;
  std::filesystem::path stderr_log_;
  bool own_log_ = false;
  std::unique_ptr<ChildProcess> child_;
  int starts_ = 0;
  bool tagged_ = false;
  std::int64_t seq_ = 0;  // the last tagged request's number
};

}  // namespace cutune::eval
