#include "progress.hpp"

#include <fmt/core.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "text_fit.hpp"

namespace cutune::cli {

namespace {

constexpr double kLogLineEverySeconds = 5.0;  // plain logs stay short on long tunes

std::size_t terminal_columns(std::FILE* out) {
  winsize size{};
  if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::min<std::size_t>(size.ws_col, kOutputColumns);
  return 80;
}

}  // namespace

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

ProgressDisplay::ProgressDisplay(std::FILE* out, double time_budget_s)
    : out_(out), terminal_(isatty(fileno(out)) != 0), time_budget_s_(time_budget_s) {}

ProgressDisplay::~ProgressDisplay() {
  if (bar_drawn_) fmt::print(out_, "\n");
}

void ProgressDisplay::update(const TuneProgress& p) {
  const std::string best = p.best_ms ? fmt::format("{:.4g} ms", *p.best_ms) : "-";
  // The tune stops at whichever budget runs out first: that one drives the bar and the ETA.
  const double by_count = p.budget == 0 ? 1.0 : static_cast<double>(p.evaluated) / p.budget;
  const double by_time = time_budget_s_ > 0 ? p.seconds / time_budget_s_ : 0.0;
  const double fraction = std::clamp(std::max(by_count, by_time), 0.0, 1.0);
  const std::string done =
      by_time > by_count
          ? fmt::format("{} of {}, {} evaluated", duration_text(p.seconds),
                        duration_text(time_budget_s_), p.evaluated)
          : fmt::format("{}/{} evaluated, {}", p.evaluated, p.budget, duration_text(p.seconds));
  const std::string eta =
      fraction > 0 && fraction < 1 ? duration_text(p.seconds * (1 - fraction) / fraction) : "-";
  const std::string status =
      fmt::format("{}, best {}, {} failed, ETA {}", done, best, p.failures, eta);

  if (terminal_) {
    const std::size_t columns = terminal_columns(out_);
    const std::size_t bar = std::clamp<std::size_t>(
        columns > status.size() + 4 ? columns - status.size() - 4 : 0, 10, 40);
    const auto filled = static_cast<std::size_t>(fraction * static_cast<double>(bar) + 0.5);
    const std::string line =
        fmt::format("[{:=<{}}{: <{}}] {}", "", filled, "", bar - filled, status);
    fmt::print(out_, "\r{}\033[K", fit(line, columns - 1));
    std::fflush(out_);
    bar_drawn_ = true;
    return;
  }
  if (fraction < 1 && p.seconds - last_line_s_ < kLogLineEverySeconds) return;
  last_line_s_ = p.seconds;
  fmt::print(out_, "tune: {}\n", status);
}

void ProgressDisplay::note(const std::string& line) {
  if (bar_drawn_) {
    fmt::print(out_, "\r\033[K");
    bar_drawn_ = false;
  }
  fmt::print(out_, "{}\n", line);
}

}  // namespace cutune::cli
