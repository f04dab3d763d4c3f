// cutune-cuda-worker: owns one GPU's CUDA context for the tuner. Reads requests, one JSON object
// per line on stdin, and answers each with one line on stdout (see worker_protocol.hpp).
//
//   cutune-cuda-worker [--device N]
//
// For each candidate: load its cubin, opt in to its dynamic shared memory, restore the inputs,
// poison the outputs and the guard regions around every buffer, launch with cuLaunchKernelEx,
// check the guards and compare with the reference's outputs, then time it with events (L2 flushed
// before each repetition), then check the guards again and the candidate kRechecksAfterTiming more
// times. A sticky CUDA error (a fault) makes the context unusable: the worker replies "crash" (or
// "transient" for the machine's trouble, such as no memory left) and exits, and the tuner starts a
// fresh one.
// Families whose launch a "measure" request cannot describe add ops of their own (worker_host.hpp).
// This file reads and answers requests; the worker itself, its context and checks: worker.hpp.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "worker.hpp"

namespace {

using namespace cutune::cuda::worker;

constexpr int kStickyExitCode = 3;

// Replies go to a private copy of the original stdout: kernels that printf (and the driver) write
// to fd 1, which points at stderr once the worker starts.
FILE* g_replies = stdout;

void send(const nlohmann::json& message) {
  std::string line = message.dump();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), g_replies);
  std::fflush(g_replies);
}

}  // namespace

int main(int argc, char** argv) {
  int ordinal = 0;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--device" && i + 1 < argc) {
      ordinal = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: cutune-cuda-worker [--device N]\n";
      return 2;
    }
  }
  int replies_fd = dup(STDOUT_FILENO);
  if (replies_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
      (g_replies = fdopen(replies_fd, "w")) == nullptr) {
    std::perror("cutune-cuda-worker: cannot set up its reply stream");
    return 2;
  }
  std::unique_ptr<Worker> worker;
  std::map<std::string, std::unique_ptr<Mode>> modes;  // per family; destroyed before the worker
  std::string line;
  while (std::getline(std::cin, line)) {
    auto started = std::chrono::steady_clock::now();
    nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (message.is_discarded() || !message.is_object()) {
      send({{"ok", false}, {"error", "not a JSON object: " + line.substr(0, 200)}});
      continue;
    }
    std::string op = message.value("op", "");
    if (op == "quit") return 0;
    try {
      if (!worker) worker = std::make_unique<Worker>(ordinal);
      if (op == "hello") {
        send({{"ok", true}, {"device", worker->report()}});
      } else if (op == "measure") {
        auto request = message.at("request").get<proto::MeasureRequest>();
        auto reply = worker->measure(request);
        reply.worker_ms = milliseconds_since(started);
        send(reply);
      } else if (op == "family") {
        const std::string family = message.value("family", "");
        auto& mode = modes[family];
        if (!mode) mode = make_family_mode(family, *worker);
        if (!mode) {
          modes.erase(family);
          send({{"ok", false}, {"error", "this worker has no mode of family '" + family + "'"}});
          continue;
        }
        auto reply = mode->measure(message.at("request"));
        reply.worker_ms = milliseconds_since(started);
        send(reply);
      } else {
        send({{"ok", false}, {"error", "unknown op '" + op + "'"}});
      }
    } catch (const CudaError& error) {
      // The context may be unusable; a fresh process is the only reliable recovery.
      proto::MeasureReply reply;
      reply.id = message.contains("request") ? message["request"].value("id", std::uint64_t{0}) : 0;
      reply.outcome = is_machine_trouble(error.code) ? "transient" : "crash";
      reply.detail = error.what();
      send(reply);
      return kStickyExitCode;
    } catch (const std::exception& error) {
      send({{"ok", false}, {"error", error.what()}});
    }
  }
  return 0;
}
