// Issue 17: what a careless or hostile command line does to `cutune tune`, run as the user runs
// it (the built tool in a child process, real compiler, worker and store). Numbers out of range
// are refused before anything runs, each error naming the option and the value; SIGINT and
// SIGTERM stop a tune after its batch in flight with every result stored, the best so far and
// how to resume; a second signal ends it at once.
#include <gtest/gtest.h>

#include <string>

#include "../store/store_testing.hpp"

namespace cutune {
namespace {

using testing::run_command;
using testing::TempDir;

struct BadNumber {
  const char* option;
  const char* value;
};

class TuneNumbers : public ::testing::TestWithParam<BadNumber> {};

// Each of these once ran (a budget of 2^64-1, no time limit, one config for --budget 0): now the
// tool stops with CLI11's validation error (status 105) before opening a store or a compiler.
TEST_P(TuneNumbers, AreRefusedNamingTheOptionAndTheValue) {
  const TempDir dir;
  const BadNumber bad = GetParam();
  const auto result = run_command(
      fmt::format("env XDG_CACHE_HOME='{}' '{}' tune '{}/cpu/matmul/matmul.json' --db '{}' {} {}",
                  (dir / "cache").string(), CUTUNE_TOOL, CUTUNE_EXAMPLES_DIR,
                  (dir / "r.db").string(), bad.option, bad.value));
  EXPECT_NE(result.status, 0) << result.output;
  EXPECT_NE(result.output.find(bad.option), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(bad.value), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db")) << "the tune started: " << result.output;
}

INSTANTIATE_TEST_SUITE_P(Issue17, TuneNumbers,
                         ::testing::Values(BadNumber{"--budget", "-1"}, BadNumber{"--budget", "0"},
                                           BadNumber{"--budget", "1e3"},
                                           BadNumber{"--budget", "18446744073709551616"},
                                           BadNumber{"--time", "-5"}, BadNumber{"--time", "nan"},
                                           BadNumber{"--time", "inf"}, BadNumber{"--seed", "-3"},
                                           BadNumber{"--seed", "0x10"},
                                           BadNumber{"--warm-start-neighbours", "-1"},
                                           BadNumber{"--show", "-2"}));

// Starts a tune in the background, waits until the store holds `rows` results, sends `signals`
// (e.g. "INT" or "INT INT") and prints the tool's exit status last.
std::string interrupted_tune(const TempDir& dir, int rows, const std::string& signals) {
  return fmt::format(
      "export XDG_CACHE_HOME='{0}/cache'; '{1}' tune '{2}/cpu/matmul/matmul.json' --db '{0}/r.db' "
      "--budget 200 --no-warm-start >'{0}/out' 2>'{0}/err' & pid=$!; "
      "for i in $(seq 600); do n=$(sqlite3 '{0}/r.db' 'SELECT count(*) FROM measurements' "
      "2>/dev/null || echo 0); [ \"${{n:-0}}\" -ge {3} ] && break; sleep 0.1; done; "
      "for s in {4}; do kill -$s $pid; sleep 0.05; done; wait $pid; echo \"status=$?\"",
      dir.path().string(), CUTUNE_TOOL, CUTUNE_EXAMPLES_DIR, rows, signals);
}

std::int64_t stored_rows(const TempDir& dir) {
  const auto count = run_command(
      fmt::format("sqlite3 '{}' 'SELECT count(*) FROM measurements'", (dir / "r.db").string()));
  return std::stoll(count.output);
}

TEST(TuneInterrupt, SigintStopsAfterTheBatchWithEveryResultStoredAndTheWayToResume) {
  const TempDir dir;
  const auto run = run_command(interrupted_tune(dir, 2, "INT"));
  const std::string out = testing::read_text(dir / "out");
  EXPECT_NE(run.output.find("status=130"), std::string::npos) << run.output << out;
  EXPECT_NE(out.find("stopped by SIGINT after"), std::string::npos) << out;
  EXPECT_NE(out.find("run the same command again"), std::string::npos) << out;
  EXPECT_NE(out.find("winning config"), std::string::npos) << out;  // the best so far
  EXPECT_EQ(out.find("tournament:"), std::string::npos) << out;

  // Every config the report counts is in the store, and a rerun reads them all back.
  const auto evaluated = out.find("evaluated ");
  ASSERT_NE(evaluated, std::string::npos) << out;
  const std::int64_t reported = std::stoll(out.substr(evaluated + 10));
  EXPECT_EQ(stored_rows(dir), reported);
  const auto resumed = run_command(fmt::format(
      "XDG_CACHE_HOME='{0}/cache' '{1}' tune '{2}/cpu/matmul/matmul.json' --db '{0}/r.db' "
      "--budget {3} --no-warm-start",
      dir.path().string(), CUTUNE_TOOL, CUTUNE_EXAMPLES_DIR, reported));
  EXPECT_EQ(resumed.status, 0) << resumed.output;
  // The search may ask other configs than before; the default config is read back at least.
  const auto from = resumed.output.find(" configs in ");
  ASSERT_NE(from, std::string::npos) << resumed.output;
  const auto open = resumed.output.find('(', from);
  EXPECT_GE(std::stoll(resumed.output.substr(open + 1)), 1) << resumed.output;
  EXPECT_GE(stored_rows(dir), reported);
}

TEST(TuneInterrupt, SigtermStopsTooAndASecondSignalEndsTheToolAtOnce) {
  const TempDir term;
  const auto stopped = run_command(interrupted_tune(term, 1, "TERM"));
  EXPECT_NE(stopped.output.find("status=143"), std::string::npos) << stopped.output;
  EXPECT_NE(testing::read_text(term / "out").find("stopped by SIGTERM"), std::string::npos);

  const TempDir twice;
  const auto killed = run_command(interrupted_tune(twice, 1, "INT INT"));
  EXPECT_NE(killed.output.find("status=130"), std::string::npos) << killed.output;
  // Ended by the second signal itself: no report, but no stored result is lost either.
  EXPECT_EQ(testing::read_text(twice / "out").find("stopped by"), std::string::npos);
  EXPECT_GE(stored_rows(twice), 1);
}

}  // namespace
}  // namespace cutune
