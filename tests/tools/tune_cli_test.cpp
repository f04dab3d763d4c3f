// `cutune tune` end to end: the built tool in a child process, tuning the shipped examples with the
// real compilers, worker processes and SQLite store, then the store opened and checked.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "../store/store_testing.hpp"
#include "cutune/family.hpp"
#include "cutune/session.hpp"
#include "cutune/store.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

using testing::read_text;
using testing::TempDir;

struct Finished {
  bool exited = false;  // false: killed by a signal (an abort, a crash)
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the tool with `arguments`, its caches under `dir` so that every compile is real.
Finished run_tool(const TempDir& dir, const std::string& environment,
                  const std::string& arguments) {
  const fs::path out = dir / "stdout.txt";
  const fs::path err = dir / "stderr.txt";
  const std::string command =
      fmt::format("env XDG_CACHE_HOME='{}' {} '{}' {} >'{}' 2>'{}'", (dir / "cache").string(),
                  environment, CUTUNE_TOOL, arguments, out.string(), err.string());
  const int status = std::system(command.c_str());
  Finished finished;
  finished.exited = status != -1 && WIFEXITED(status);
  finished.status = finished.exited ? WEXITSTATUS(status) : -1;
  finished.out = read_text(out);
  finished.err = read_text(err);
  return finished;
}

TuningKey key_of(const nlohmann::json& report) {
  const auto& key = report.at("key");
  return {key.at("family"), key.at("family_version"), key.at("problem"), key.at("device"),
          key.at("toolchain")};
}

// Issue #3: a tune of an example finds a winner at least as fast as the default config, and every
// candidate it evaluated is in the store. Issue 10: measured so in paired rounds, and deployed.
TEST(TuneCli, MatmulTuneStoresEveryCandidateAndBeatsTheDefault) {
  TempDir dir;
  const fs::path db = dir / "results.db";
  constexpr int budget = 8;
  const Finished run =
      run_tool(dir, "",
               fmt::format("tune {}/cpu/matmul/matmul.json --problem m=128,n=128,k=128 --budget {} "
                           "--seed 3 --db '{}' --json",
                           CUTUNE_EXAMPLES_DIR, budget, db.string()));
  ASSERT_TRUE(run.exited) << run.err;
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  const auto report = nlohmann::json::parse(run.out);

  const std::size_t evaluated = report.at("evaluated");
  EXPECT_GE(evaluated, 2u);  // the default and at least one candidate of the search
  EXPECT_LE(evaluated, static_cast<std::size_t>(budget));
  EXPECT_EQ(report.at("resumed"), 0);  // a fresh store: every result was measured by this run
  EXPECT_EQ(report.at("store"), db.string());
  ASSERT_TRUE(report.contains("default"));
  ASSERT_TRUE(report.contains("best"));
  EXPECT_EQ(report.at("default").at("outcome"), "ok");

  // The winner came out of the tournament's paired rounds with the default: it is the default or
  // beat it there, so its paired speedup is at least 1.
  const double default_ms = report.at("default").at("time_ms");
  const double best_ms = report.at("best").at("time_ms");
  EXPECT_GT(best_ms, 0);
  EXPECT_GE(report.at("speedup_over_default").get<double>(), 1.0) << run.out;

  // Every evaluated candidate is in the store, under the key the report names: one distinct
  // config per evaluation (and per reset the finishing pass kept), plus one row per finalist for
  // its tournament rounds.
  auto store = Store::open(db, OpenMode::read_only);
  const TuningKey key = key_of(report);
  const auto stored = store.results(key);
  std::set<std::string> hashes;
  for (const auto& result : stored) hashes.insert(result.config_hash);
  const auto& finalists = report.at("tournament").at("finalists");
  std::size_t kept_resets = 0;
  for (const auto& finalist : finalists) kept_resets += finalist.at("role") == "finishing";
  EXPECT_EQ(hashes.size(), evaluated + kept_resets);
  EXPECT_EQ(stored.size(), evaluated + finalists.size());
  EXPECT_EQ(store.measurement_count(key), static_cast<std::int64_t>(stored.size()));

  // The default's first row is its search time; the winner's latest row is the tournament's
  // timing that made it the winner, and the store deploys it.
  const StoredResult* default_row = nullptr;
  const StoredResult* best_row = nullptr;
  for (const auto& result : stored) {
    const auto config = nlohmann::json::parse(result.config_json);
    if (config == report.at("default").at("config") && default_row == nullptr)
      default_row = &result;
    if (config == report.at("best").at("config")) best_row = &result;
  }
  ASSERT_NE(default_row, nullptr);
  ASSERT_NE(best_row, nullptr);
  EXPECT_DOUBLE_EQ(default_row->measurement.time_ms, default_ms);
  EXPECT_DOUBLE_EQ(best_row->measurement.time_ms, best_ms);
  EXPECT_EQ(best_row->measurement.outcome, Outcome::ok);
  EXPECT_EQ(store.deployed(key)->config_hash, best_row->config_hash);
}

// Issue 31: one problem rule. The key `cutune tune` stores a tune under names the problem
// `cutune space` describes for the same text (here out of order: both canonicalize alike).
TEST(TuneCli, TuneAndSpaceResolveAProblemTextAlike) {
  TempDir dir;
  const std::string spec = fmt::format("{}/cpu/matmul/matmul.json", CUTUNE_EXAMPLES_DIR);
  const Finished tuned = run_tool(
      dir, "", fmt::format("tune {} --problem n=64,k=64,m=64 --budget 2 --no-store --json", spec));
  ASSERT_TRUE(tuned.exited) << tuned.err;
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  const Finished space =
      run_tool(dir, "", fmt::format("space {} --problem n=64,k=64,m=64 --draws 10 --json", spec));
  ASSERT_EQ(space.status, 0) << space.err;
  EXPECT_EQ(nlohmann::json::parse(tuned.out).at("key").at("problem"),
            nlohmann::json::parse(space.out).at("problem"));
  EXPECT_EQ(nlohmann::json::parse(space.out).at("problem"), "k=64,m=64,n=64");
}

// A built-in family's missing arguments come from its example, for a tune as for `cutune space`:
// `cutune tune gemm --problem m=128` tunes the problem `cutune space gemm --problem m=128`
// describes. The tune's session (cutune/session.hpp) resolves it before any GPU is asked, so this
// runs on a machine without one.
TEST(TuneCli, ABuiltInFamilysTuneSessionResolvesAsSpaceDoes) {
  if (find_family("gemm") == nullptr) GTEST_SKIP() << "no GEMM family in this build";
  TempDir dir;
  const Finished space = run_tool(dir, "", "space gemm --problem m=128 --draws 10 --json");
  ASSERT_EQ(space.status, 0) << space.err;
  const TuneSession session = tune_session("gemm", "m=128");
  EXPECT_EQ(session.problem().canonical(), nlohmann::json::parse(space.out).at("problem"));
  EXPECT_EQ(session.problem().at("m").as_int(), 128);
  EXPECT_TRUE(session.problem().has("n") && session.problem().has("k"));
}

// `cutune space --json` gives a shape's default config and its seeds' configs, and for the GEMM
// the family's names of them, which its benchmarks build by (scripts/gpu/gemm-ab.sh).
TEST(TuneCli, SpaceJsonNamesTheDefaultAndTheSeedsConfigs) {
  if (find_family("gemm") == nullptr) GTEST_SKIP() << "no GEMM family in this build";
  TempDir dir;
  const Finished space = run_tool(dir, "", "space gemm --problem m=2048 --draws 10 --json");
  ASSERT_EQ(space.status, 0) << space.err;
  const nlohmann::json j = nlohmann::json::parse(space.out);
  const std::regex name(R"(\d+x\d+x\d+_s\d+_c\d+x\d+_(coop|ping)_r[mn]\d+_k\d+(_pdl)?)");
  EXPECT_TRUE(std::regex_match(j.at("default_config_name").get<std::string>(), name)) << j;
  ASSERT_FALSE(j.at("seed_configs").empty()) << j;
  ASSERT_EQ(j.at("seed_config_names").size(), j.at("seed_configs").size());
  for (const auto& seed : j.at("seed_config_names")) {
    EXPECT_TRUE(std::regex_match(seed.get<std::string>(), name)) << seed;
  }
  // The default is the first usable seed's config (default_config), under the same name.
  EXPECT_EQ(j.at("seed_configs").at(0), j.at("default_config"));
  EXPECT_EQ(j.at("seed_config_names").at(0), j.at("default_config_name"));
}

#ifdef CUTUNE_FAKE_CUDA_WORKER
// A CUDA spec is tuned by the CUDA backend: NVRTC compiles for the architecture the device worker
// reports, and the store's key names that device. The stand-in worker (no GPU needed) reports an
// sm_90 device and knows no "row_sum" kernel, so no candidate measures and the tune ends with
// status 2 (no winner), every failure kept in the store.
TEST(TuneCli, CudaSpecIsTunedOnTheDeviceTheWorkerReports) {
  TempDir dir;
  const fs::path db = dir / "results.db";
  const Finished run =
      run_tool(dir, fmt::format("CUTUNE_CUDA_WORKER='{}'", CUTUNE_FAKE_CUDA_WORKER),
               fmt::format("tune {}/cuda/reduction.json --budget 2 --db '{}' --json",
                           CUTUNE_EXAMPLES_DIR, db.string()));
  ASSERT_TRUE(run.exited) << run.err;
  ASSERT_EQ(run.status, 2) << run.err << run.out;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report.at("key").at("family"), "row_sum");
  EXPECT_EQ(report.at("key").at("device"), "stand-in (sm_90)");
  EXPECT_NE(report.at("key").at("toolchain").get<std::string>().find("sm_90a"), std::string::npos);
  EXPECT_FALSE(report.contains("best"));
  const std::size_t evaluated = report.at("evaluated");
  EXPECT_GE(evaluated, 1u);
  auto store = Store::open(db, OpenMode::read_only);
  EXPECT_EQ(store.measurement_count(key_of(report)), static_cast<std::int64_t>(evaluated));
}

// A worker that cannot start (no GPU, no driver) ends the tune with an error naming the worker,
// not an abort.
TEST(TuneCli, CudaSpecWithAWorkerThatCannotStartFailsWithAClearError) {
  TempDir dir;
  const Finished run =
      run_tool(dir, fmt::format("CUTUNE_CUDA_WORKER='{}'", (dir / "no-such-worker").string()),
               fmt::format("tune {}/cuda/reduction.json --budget 2 --db '{}'", CUTUNE_EXAMPLES_DIR,
                           (dir / "results.db").string()));
  ASSERT_TRUE(run.exited) << "killed by a signal: " << run.err;
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_NE(run.err.find("cutune: error: the CUDA device worker did not start"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("terminate called"), std::string::npos) << run.err;
}

// With the worker this build made: on a machine without a GPU (this test's usual home; GPU
// machines run tests/gpu) the worker cannot start and the tune fails with a clear error, naming
// the device worker; where a GPU answers, the tune runs.
TEST(TuneCli, CudaSpecOnThisMachineTunesOrNamesTheMissingDevice) {
  TempDir dir;
  const Finished run = run_tool(dir, "",
                                fmt::format("tune {}/cuda/reduction.json --budget 2 --db '{}'",
                                            CUTUNE_EXAMPLES_DIR, (dir / "results.db").string()));
  ASSERT_TRUE(run.exited) << "killed by a signal: " << run.err;
  EXPECT_EQ(run.err.find("terminate called"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("is not available in this build"), std::string::npos) << run.err;
  if (run.status == 0) {
    EXPECT_NE(run.out.find("winning config"), std::string::npos) << run.out;
  } else {
    EXPECT_EQ(run.status, 1) << run.err;
    EXPECT_NE(run.err.find("cutune: error: the CUDA device worker did not start"),
              std::string::npos)
        << run.err;
  }
}
#endif

}  // namespace
}  // namespace cutune
