// The rank table after a tune (tools/cutune/rank_table.hpp): the winner first, and each time
// column comparable down its rows (issue 32: rank 1 showed its tournament time above the others'
// search times, so it looked slower than rank 2).
#include "rank_table.hpp"

#include <gtest/gtest.h>

#include "cutune/fragment.hpp"
#include "cutune/space.hpp"
#include "support/measurement_testing.hpp"

namespace cutune::cli {
namespace {

using testing::failed;
using testing::ok;

TEST(RankTable, WinnerFirstWithSearchAndTournamentTimesInTheirOwnColumns) {
  Space space;
  space.add("width", enum_fragment({1, 2, 4, 8}, {}, 1));
  const auto config = [&](int width) { return Config(space, {Value(width)}); };
  const auto evaluated = [&](int width, Measurement m) {
    return Evaluated{config(width), std::move(m), false, 0.0};
  };
  TuneReport report;
  report.evaluated = {evaluated(1, ok(3.0)), evaluated(2, ok(1.0)),  // fastest in the search
                      evaluated(4, ok(1.1)), evaluated(8, failed(Outcome::crash))};
  TournamentResult tournament;
  for (const auto& [width, time] : {std::pair{1, 2.9}, std::pair{2, 1.2}, std::pair{4, 1.05}}) {
    Finalist f{config(width)};
    f.measurement = ok(time);
    tournament.finalists.push_back(f);
  }
  tournament.winner = 2;
  report.best = evaluated(4, tournament.finalists[2].measurement);
  report.tournament = tournament;

  const std::vector<std::string> lines = rank_table(report, 10);
  ASSERT_EQ(lines.size(), 5u);  // header, three correct configs, the note
  EXPECT_EQ(lines[0].find("rank"), 0u);
  EXPECT_NE(lines[0].find("search (ms)"), std::string::npos);
  EXPECT_NE(lines[0].find("tournament (ms)"), std::string::npos);
  // rank 1 is the winner, with its own search time (1.1) and its tournament time (1.05)
  EXPECT_EQ(lines[1].find("1 (winner)"), 0u) << lines[1];
  EXPECT_NE(lines[1].find("1.1 "), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("1.05"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].find("2 "), 0u) << lines[2];
  EXPECT_NE(lines[2].find("1.2"), std::string::npos) << lines[2];  // config 2's tournament time
  EXPECT_NE(lines[3].find("{\"width\":1}"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("paired rounds"), std::string::npos);
}

}  // namespace
}  // namespace cutune::cli
