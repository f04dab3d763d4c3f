// cutune-cpu-worker: loads candidate kernels (shared objects) and checks and times them, one
// request per line on stdin, one reply per line on stdout (protocol.hpp). Candidates run in this
// process: a crash or a hang ends it, and the tuner starts a new one.
// This file reads and answers requests; the worker itself, its buffers and checks: worker.hpp.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "eval/reply_tag.hpp"
#include "worker.hpp"

namespace cutune::cpu {
namespace {

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
