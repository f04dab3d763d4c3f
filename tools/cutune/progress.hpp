// Progress of a long-running command: a redrawn bar on a terminal, plain log lines otherwise
// (CI logs, pipes), so that both a person and a log reader can follow a tune.
#pragma once

#include <cstdio>
#include <string>

#include "cutune/tune.hpp"

namespace cutune::cli {

class ProgressDisplay {
 public:
  explicit ProgressDisplay(std::FILE* out);
  ~ProgressDisplay();  // ends the bar's line
  void update(const TuneProgress& progress);
  // A line that must not be overwritten by the bar (a failure, a note).
  void note(const std::string& line);

 private:
  std::FILE* out_;
  bool terminal_;
  bool bar_drawn_ = false;
  double last_line_s_ = -1.0;
};

}  // namespace cutune::cli
