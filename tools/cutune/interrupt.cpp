#include "interrupt.hpp"

#include <unistd.h>

#include <csignal>

namespace cutune::cli {
namespace {

std::atomic<bool> stop_asked{false};
std::atomic<int> first_signal{0};
struct sigaction previous_int, previous_term;

extern "C" void on_signal(int signal) {
  if (stop_asked.exchange(true)) {
    // The second: at once, as if no handler had been installed.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  first_signal = signal;
  static constexpr char message[] =
      "\ncutune: stopping after the batch in flight (send the signal again to stop at once)\n";
  if (::write(STDERR_FILENO, message, sizeof message - 1) < 0) return;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  stop_asked = false;
  first_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // Interrupted system calls restart: a read of a worker's pipe must not fail because of it.
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &previous_int);
  ::sigaction(SIGTERM, &action, &previous_term);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &previous_int, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
}

const std::atomic<bool>& InterruptGuard::stop() const { return stop_asked; }

int InterruptGuard::signal() const { return first_signal; }

}  // namespace cutune::cli
