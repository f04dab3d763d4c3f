// The tune's progress as a person and a log see it (tools/cutune/progress.hpp): after the search,
// the tournament is named with its finalists and its own clock, not a frozen search bar.
#include "progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace cutune::cli {
namespace {

TuneProgress searched(std::size_t evaluated, double seconds) {
  TuneProgress p;
  p.evaluated = evaluated;
  p.budget = 40;
  p.best_ms = 1.25;
  p.failures = 3;
  p.seconds = seconds;
  return p;
}

TEST(Progress, TheSearchShowsItsBudgetAndTheTournamentItsFinalistsAndClock) {
  EXPECT_EQ(progress_status(searched(10, 8), 0),
            "10/40 evaluated, 8s, best 1.25 ms, 3 failed, ETA 24s");
  EXPECT_DOUBLE_EQ(progress_fraction(searched(10, 8), 0), 0.25);
  TuneProgress tournament = searched(40, 75);
  tournament.phase = TunePhase::tournament;
  tournament.finalists = 5;
  EXPECT_EQ(progress_status(tournament, 0),
            "tournament of 5 finalists, 1m15s (search: 40/40 evaluated, best 1.25 ms, 3 failed)");
  EXPECT_DOUBLE_EQ(progress_fraction(tournament, 0), 1.0);  // the search's bar is full
}

// A log (no terminal) gets one line as each phase starts, none for every redraw after it.
TEST(Progress, ALogGetsALineWhenEachPhaseStarts) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressDisplay display(file, 0);
    display.update(searched(1, 2.0));
    display.update(searched(2, 3.0));  // within 5 s of the last line: none
    TuneProgress phase = searched(40, 20);
    phase.phase = TunePhase::tournament;
    phase.finalists = 4;
    display.update(phase);
    phase.seconds = 30;
    display.update(phase);
    phase.phase = TunePhase::finishing;
    display.update(phase);
  }
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  std::fclose(file);
  EXPECT_EQ(
      text,
      "tune: 1/40 evaluated, 2s, best 1.25 ms, 3 failed, ETA 1m18s\n"
      "tune: tournament of 4 finalists, 20s (search: 40/40 evaluated, best 1.25 ms, 3 failed)\n"
      "tune: finishing of 4 finalists, 30s (search: 40/40 evaluated, best 1.25 ms, 3 failed)\n");
}

}  // namespace
}  // namespace cutune::cli
