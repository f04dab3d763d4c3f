#include "progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

namespace cutune::cli {

namespace {
constexpr int kBarWidth = 30;
constexpr double kLogLineEverySeconds = 5.0;  // plain logs stay short on long tunes
}  // namespace

ProgressDisplay::ProgressDisplay(std::FILE* out) : out_(out), terminal_(isatty(fileno(out)) != 0) {}

ProgressDisplay::~ProgressDisplay() {
  if (bar_drawn_) fmt::print(out_, "\n");
}

void ProgressDisplay::update(const TuneProgress& p) {
  const std::string best = p.best_ms ? fmt::format("{:.4g} ms", *p.best_ms) : "-";
  if (terminal_) {
    const double fraction = p.budget == 0 ? 1.0 : static_cast<double>(p.evaluated) / p.budget;
    const int filled = static_cast<int>(fraction * kBarWidth + 0.5);
    fmt::print(out_, "\r[{:=<{}}{: <{}}] {}/{} best {} failed {} {:.1f}s ", "", filled, "",
               kBarWidth - filled, p.evaluated, p.budget, best, p.failures, p.seconds);
    std::fflush(out_);
    bar_drawn_ = true;
    return;
  }
  if (p.evaluated < p.budget && p.seconds - last_line_s_ < kLogLineEverySeconds) return;
  last_line_s_ = p.seconds;
  fmt::print(out_, "tune: {}/{} evaluated, best {}, {} failed, {:.1f} s\n", p.evaluated, p.budget,
             best, p.failures, p.seconds);
}

void ProgressDisplay::note(const std::string& line) {
  if (bar_drawn_) {
    fmt::print(out_, "\r\033[K");
    bar_drawn_ = false;
  }
  fmt::print(out_, "{}\n", line);
}

}  // namespace cutune::cli
