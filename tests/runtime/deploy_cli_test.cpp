// Issue 10 end to end: the real tool tunes the CPU matmul example into a fresh store, and what the
// store then deploys (`cutune show`, `cutune export`, the runtime's lookup) is the winner the tune
// reported, whose speedup over the default comes from the tournament's paired rounds.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {
namespace {

nlohmann::json run_json(const std::string& command) {
  const auto [status, out] = run_command(command, /*keep_stderr_apart=*/true);
  EXPECT_EQ(status, 0) << command << "\n" << out;
  return nlohmann::json::parse(out);
}

TEST(DeployCli, TheDeployedConfigIsTheReportedWinnerWithAPairedSpeedup) {
  TempDir dir;
  const auto db = dir / "results.db";
  const std::string spec = fmt::format("{}/cpu/matmul/matmul.json", CUTUNE_EXAMPLES_DIR);
  const auto report = run_json(fmt::format(
      "XDG_CACHE_HOME={} {} tune {} --problem m=96,n=96,k=96 --budget 10 --seed 2 --db {} --json "
      "2>{}",
      (dir / "cache").string(), CUTUNE_TOOL, spec, db.string(), (dir / "stderr.txt").string()));
  const nlohmann::json& winner = report.at("best").at("config");

  // The speedup is the winner's median paired ratio, inside its own interval, over >= 15 rounds.
  const auto& tournament = report.at("tournament");
  const auto& finalist = tournament.at("finalists").at(tournament.at("winner").get<std::size_t>());
  EXPECT_EQ(finalist.at("config"), winner);
  EXPECT_DOUBLE_EQ(report.at("speedup_over_default").get<double>(), finalist.at("ratio"));
  EXPECT_LE(report.at("speedup_interval").at(0).get<double>(),
            report.at("speedup_over_default").get<double>());
  EXPECT_GE(report.at("speedup_interval").at(1).get<double>(),
            report.at("speedup_over_default").get<double>());
  EXPECT_GE(finalist.at("rounds").get<int>(), 15);
  EXPECT_EQ(tournament.at("finalists").at(0).at("role"), "default");
  EXPECT_GT(tournament.at("share_of_wall_time").get<double>(), 0.0);
  // The default is never displaced by a slower config: a winner other than the default beat it
  // beyond the noise.
  if (finalist.at("role") != "default") {
    EXPECT_GT(finalist.at("ratio_low").get<double>(), 1.01);
  }

  const auto shown = run_json(fmt::format("{} show --json --db {}", CUTUNE_TOOL, db.string()));
  ASSERT_EQ(shown.at("results").size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(shown.at("results").at(0).at("config").dump()), winner);
  const auto json_file = dir / "export.json";
  run_command(
      fmt::format("{} export --db {} --json {}", CUTUNE_TOOL, db.string(), json_file.string()));
  const auto exported = nlohmann::json::parse(read_text(json_file));
  EXPECT_EQ(exported.at("results").at(0).at("config"), winner);

  const KernelSpec loaded = load_spec(spec);  // the family refers to it
  Runtime runtime({.store = db, .on_warning = [](const std::string&) {}});
  runtime.add_family(cpu_spec_family(loaded, {.cache_dir = dir / "cache" / "runtime"}));
  const Kernel& kernel = runtime.get("cpu_matmul", Problem::parse("m=96,n=96,k=96"));
  EXPECT_EQ(kernel.origin(), KernelOrigin::store);
  EXPECT_EQ(kernel.config().to_json(), winner);
}

}  // namespace
}  // namespace cutune::testing
