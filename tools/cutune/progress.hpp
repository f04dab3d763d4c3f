// Progress of a long-running command: a redrawn bar on a terminal (as wide as the terminal, at
// most 120 columns, with an ETA), plain log lines otherwise (CI logs, pipes), so that both a
// person and a log reader can follow a tune.
#pragma once

#include <cstdio>
#include <string>

#include "cutune/tune.hpp"

namespace cutune::cli {

class ProgressDisplay {
 public:
  // time_budget_s: the tune's wall-time budget (0: none), which then drives the bar and the ETA.
  ProgressDisplay(std::FILE* out, double time_budget_s);
  ~ProgressDisplay();  // ends the bar's line
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void update(const TuneProgress& progress);
  // A line that must not be overwritten by the bar (a failure, a note).
  void note(const std::string& line);

 private:
  std::FILE* out_;
  bool terminal_;
  double time_budget_s_;
  bool bar_drawn_ = false;
  double last_line_s_ = -1.0;
};

// "1m05s", "42s": a duration as a person reads it.
std::string duration_text(double seconds);

}  // namespace cutune::cli
