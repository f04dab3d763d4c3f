// SIGINT and SIGTERM during a tune: the first asks the tune to stop after the batch in flight
// (TuneOptions::stop), so that every measured result is stored and the best so far is printed;
// a second one ends the tool at once, by the signal's own default action. Compilers and workers
// run in process groups of their own, so a terminal's Ctrl-C reaches only the tool.
#pragma once

#include <atomic>

namespace cutune::cli {

// Installs the handlers for as long as it lives (one at a time), restoring the previous ones.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Set by the first signal; for TuneOptions::stop.
  const std::atomic<bool>& stop() const;
  // The first signal received (SIGINT or SIGTERM), 0 when none.
  int signal() const;
};

}  // namespace cutune::cli
