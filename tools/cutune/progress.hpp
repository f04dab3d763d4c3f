// Progress of a long-running command: a redrawn bar on a terminal (as wide as the terminal, at
// most 120 columns, with an ETA), plain log lines otherwise (CI logs, pipes), so that both a
// person and a log reader can follow a tune. After the search, the tournament and its finishing
// pass measure no new configs for a while (most of a small tune): the bar names the phase and,
// on a terminal, its clock keeps running, redrawn every second, so the tool does not look hung.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cutune/tune.hpp"

namespace cutune::cli {

class ProgressDisplay {
 public:
  // time_budget_s: the tune's wall-time budget (0: none), which then drives the bar and the ETA.
  ProgressDisplay(std::FILE* out, double time_budget_s);
  ~ProgressDisplay();  // stops the clock, ends the bar's line
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void update(const TuneProgress& progress);
  // A line that must not be overwritten by the bar (a failure, a note).
  void note(const std::string& line);

 private:
  void draw(const TuneProgress& progress);  // with mutex_ held
  void tick();                              // the clock's thread

  std::FILE* out_;
  bool terminal_;
  double time_budget_s_;
  bool bar_drawn_ = false;
  double last_line_s_ = -1.0;
  std::optional<TunePhase> logged_phase_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<TuneProgress> last_;
  std::chrono::steady_clock::time_point last_at_;
  std::thread clock_;
};

// The status after the bar: "12/40 evaluated, 8s, best 1.2 ms, 0 failed, ETA 20s" in the search;
// "tournament of 5 finalists, 14s (search: 40/40 evaluated, best 1.2 ms, 3 failed)" after it.
std::string progress_status(const TuneProgress& progress, double time_budget_s);

// The bar's filled fraction: the budget that ends the tune first; 1 once the search is over.
double progress_fraction(const TuneProgress& progress, double time_budget_s);

// "1m05s", "42s": a duration as a person reads it.
std::string duration_text(double seconds);

}  // namespace cutune::cli
