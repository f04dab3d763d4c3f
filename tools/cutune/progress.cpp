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
constexpr auto kClockEvery = std::chrono::seconds(1);

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

double progress_fraction(const TuneProgress& p, double time_budget_s) {
  if (p.phase != TunePhase::search) return 1.0;
  const double by_count = p.budget == 0 ? 1.0 : static_cast<double>(p.evaluated) / p.budget;
  const double by_time = time_budget_s > 0 ? p.seconds / time_budget_s : 0.0;
  return std::clamp(std::max(by_count, by_time), 0.0, 1.0);
}

std::string progress_status(const TuneProgress& p, double time_budget_s) {
  const std::string best = p.best_ms ? fmt::format("{:.4g} ms", *p.best_ms) : "-";
  if (p.phase != TunePhase::search) {
    return fmt::format("{} of {} finalists, {} (search: {}/{} evaluated, best {}, {} failed)",
                       to_string(p.phase), p.finalists, duration_text(p.seconds), p.evaluated,
                       p.budget, best, p.failures);
  }
  // The tune stops at whichever budget runs out first: that one drives the bar and the ETA.
  const double by_count = p.budget == 0 ? 1.0 : static_cast<double>(p.evaluated) / p.budget;
  const double by_time = time_budget_s > 0 ? p.seconds / time_budget_s : 0.0;
  const double fraction = progress_fraction(p, time_budget_s);
  const std::string done =
      by_time > by_count
          ? fmt::format("{} of {}, {} evaluated", duration_text(p.seconds),
                        duration_text(time_budget_s), p.evaluated)
          : fmt::format("{}/{} evaluated, {}", p.evaluated, p.budget, duration_text(p.seconds));
  const std::string eta =
      fraction > 0 && fraction < 1 ? duration_text(p.seconds * (1 - fraction) / fraction) : "-";
  return fmt::format("{}, best {}, {} failed, ETA {}", done, best, p.failures, eta);
}

ProgressDisplay::ProgressDisplay(std::FILE* out, double time_budget_s)
    : out_(out), terminal_(isatty(fileno(out)) != 0), time_budget_s_(time_budget_s) {}

ProgressDisplay::~ProgressDisplay() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (clock_.joinable()) clock_.join();
  if (bar_drawn_) fmt::print(out_, "\n");
}

void ProgressDisplay::update(const TuneProgress& p) {
  std::lock_guard lock(mutex_);
  last_ = p;
  last_at_ = std::chrono::steady_clock::now();
  draw(p);
  if (terminal_ && p.phase != TunePhase::search && !clock_.joinable()) {
    clock_ = std::thread([this] { tick(); });
  }
}

void ProgressDisplay::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kClockEvery, [this] { return stopping_; })) {
    TuneProgress now = *last_;
    now.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - last_at_).count();
    draw(now);
  }
}

void ProgressDisplay::draw(const TuneProgress& p) {
  const std::string status = progress_status(p, time_budget_s_);
  const double fraction = progress_fraction(p, time_budget_s_);
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
  // A log gets a line when a phase starts, then one every few seconds.
  const bool new_phase = logged_phase_ != p.phase;
  if (!new_phase && fraction < 1 && p.seconds - last_line_s_ < kLogLineEverySeconds) return;
  if (!new_phase && p.phase != TunePhase::search) return;
  logged_phase_ = p.phase;
  last_line_s_ = p.seconds;
  fmt::print(out_, "tune: {}\n", status);
}

void ProgressDisplay::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (bar_drawn_) {
    fmt::print(out_, "\r\033[K");
    bar_drawn_ = false;
  }
  fmt::print(out_, "{}\n", line);
}

}  // namespace cutune::cli
