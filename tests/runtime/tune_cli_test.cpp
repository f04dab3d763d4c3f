// `cutune tune` warm-starts from the store: the real tool tunes the CPU matmul example on a few
// shapes in one store, and each report says which nearest tuned shapes' winners it started from.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "store/store_testing.hpp"

namespace cutune::testing {
namespace {

// Runs a `cutune tune --json` and returns its report (stdout only; progress goes to stderr).
nlohmann::json tune_json(const TempDir& dir, const std::string& problem,
                         const std::string& extra = "") {
  const std::string command = fmt::format(
      "{} tune {}/cpu/matmul/matmul.json --problem {} --budget 3 --seed 1 --db {} "
      "--json {} 2>{}",
      CUTUNE_TOOL, CUTUNE_EXAMPLES_DIR, problem, (dir / "results.db").string(), extra,
      (dir / "stderr.txt").string());
  const auto [status, out] = run_command(command, /*keep_stderr_apart=*/true);
  EXPECT_EQ(status, 0) << command << "\n" << out;
  return nlohmann::json::parse(out);
}

TEST(TuneWarmStartCli, StartsFromTheWinnersOfTheNearestTunedShapes) {
  TempDir dir;
  const auto first = tune_json(dir, "m=64,n=64,k=64");
  EXPECT_TRUE(first["warm_start"]["enabled"].get<bool>());
  EXPECT_EQ(first["warm_start"]["configs"], 0);  // nothing tuned yet

  const auto second = tune_json(dir, "m=128,n=128,k=128");
  ASSERT_EQ(second["warm_start"]["configs"], 1) << second.dump(2);
  EXPECT_EQ(second["warm_start"]["evaluated"], 1);
  const auto& from = second["warm_start"]["from"][0];
  EXPECT_EQ(from["problem"], "k=64,m=64,n=64");
  // The neighbour's winner is what its own tune reported as best.
  EXPECT_EQ(nlohmann::json::parse(from["config"].get<std::string>()), first["best"]["config"]);

  // A shape tuned before resumes from the store; only the other shapes' winners warm-start it.
  const auto again = tune_json(dir, "m=64,n=64,k=64");
  ASSERT_EQ(again["warm_start"]["configs"], 1) << again.dump(2);
  EXPECT_EQ(again["warm_start"]["from"][0]["problem"], "k=128,m=128,n=128");
  EXPECT_GE(again["resumed"].get<int>(), 1);

  const auto off = tune_json(dir, "m=96,n=96,k=96", "--no-warm-start");
  EXPECT_FALSE(off["warm_start"]["enabled"].get<bool>());
  EXPECT_EQ(off["warm_start"]["configs"], 0);
  const auto on = tune_json(dir, "m=96,n=96,k=64", "--warm-start-neighbours 1");
  EXPECT_EQ(on["warm_start"]["configs"], 1);
}

}  // namespace
}  // namespace cutune::testing
