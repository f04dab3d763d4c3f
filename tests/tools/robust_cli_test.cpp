// Issue 17: what a careless or hostile command line does to `cutune tune`, run as the user runs
// it (the built tool in a child process, real compiler, worker and store). Numbers out of range
// are refused before anything runs, each error naming the option and the value; SIGINT and
// SIGTERM stop a tune after its batch in flight with every result stored, the best so far and
// how to resume; a second signal ends it at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../store/store_testing.hpp"

namespace cutune {
namespace {

using testing::CommandResult;
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

INSTANTIATE_TEST_SUITE_P(
    Issue17, TuneNumbers,
    ::testing::Values(BadNumber{"--budget", "-1"}, BadNumber{"--budget", "0"},
                      BadNumber{"--budget", "1e3"}, BadNumber{"--budget", "18446744073709551616"},
                      BadNumber{"--time", "-5"}, BadNumber{"--time", "nan"},
                      BadNumber{"--time", "inf"}, BadNumber{"--seed", "-3"},
                      BadNumber{"--seed", "0x10"}, BadNumber{"--warm-start-neighbours", "-1"},
                      BadNumber{"--show", "-2"}),
    // "budget_0", "time_5": the option and the place in the list (values hold '-' and '.').
    [](const ::testing::TestParamInfo<BadNumber>& info) {
      std::string name = std::string(info.param.option + 2) + "_" + std::to_string(info.index);
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

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

// A real full disk: a small tmpfs mounted in a private user and mount namespace (unshare -rm),
// remounted larger between runs. Skipped where the kernel does not lend such namespaces.
class FullDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "mnt");
    const auto probe = run_command(
        fmt::format("unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs {}'", mnt().string()));
    if (probe.status != 0) GTEST_SKIP() << "no private tmpfs here: " << probe.output;
  }
  std::filesystem::path mnt() const { return dir_ / "mnt"; }
  // Runs `script` (sh) inside one namespace where {mnt} starts as a tmpfs of `size`; `grow`
  // remounts it at 64 MiB.
  CommandResult in_namespace(const std::string& size, const std::string& script) const {
    const std::string text = fmt::format(
        "set -u\nmount -t tmpfs -o size={} tmpfs '{}'\ngrow() {{ mount -o remount,size=64m '{}'; "
        "}}\ntune() {{ '{}' tune '{}/cpu/matmul/matmul.json' --no-warm-start --json \"$@\"; }}\n{}",
        size, mnt().string(), mnt().string(), CUTUNE_TOOL, CUTUNE_EXAMPLES_DIR, script);
    std::ofstream(dir_ / "script.sh") << text;
    return run_command(fmt::format("unshare -rm sh '{}'", (dir_ / "script.sh").string()));
  }
  nlohmann::json report(const std::string& name) const {
    return nlohmann::json::parse(testing::read_text(dir_ / name));
  }
  std::size_t count(const nlohmann::json& report, const char* outcome) const {
    return report.at("outcomes").value(outcome, std::size_t{0});
  }
  TempDir dir_;
};

// Issue 17's reproduction: the compile cache on a full disk once turned 24 of 40 configs into
// cached compile errors that every later tune, even on a new store, reported.
TEST_F(FullDisk, ACacheOnAFullDiskGivesTransientFailuresThatLaterTunesCompile) {
  const auto run =
      in_namespace("100k", fmt::format("export XDG_CACHE_HOME='{0}'\n"
                                       "tune --budget 16 --db '{1}/a.db' >'{1}/a.json'\ngrow\n"
                                       "tune --budget 16 --db '{1}/b.db' >'{1}/b.json'\n"
                                       "tune --budget 16 --db '{1}/a.db' >'{1}/c.json'\n",
                                       mnt().string(), dir_.path().string()));
  ASSERT_EQ(run.status, 0) << run.output;
  const auto full = report("a.json");
  EXPECT_EQ(count(full, "compile_error"), 0u) << full.dump();
  EXPECT_GE(count(full, "transient"), 1u) << full.dump();  // else the disk never filled
  const auto fresh = report("b.json");
  EXPECT_EQ(count(fresh, "ok"), 16u) << fresh.dump();
  // The same store again: its ok rows are read back, its transient ones measured again.
  const auto resumed = report("c.json");
  EXPECT_EQ(count(resumed, "ok"), 16u) << resumed.dump();
  EXPECT_GE(resumed.at("resumed").get<std::size_t>(), 1u) << resumed.dump();
}

TEST_F(FullDisk, AStoreOnAFullDiskStopsTheTuneKeepingEveryCommittedRowAndTheRerunResumes) {
  const auto run = in_namespace(
      "160k",
      fmt::format("export XDG_CACHE_HOME='{1}/cache'\n"
                  "tune --budget 60 --db '{0}/r.db' >'{1}/a.json' 2>'{1}/a.err'\n"
                  "echo \"first=$?\"\nsqlite3 '{0}/r.db' 'SELECT count(*) FROM measurements' "
                  ">'{1}/rows'\nsqlite3 '{0}/r.db' 'SELECT config_hash FROM measurements' "
                  ">'{1}/hashes'\ngrow\ntune --budget 4 --db '{0}/r.db' >'{1}/b.json'\n",
                  mnt().string(), dir_.path().string()));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("first=1"), std::string::npos) << run.output;
  const std::string error = testing::read_text(dir_ / "a.err");
  EXPECT_NE(error.find("results store " + (mnt() / "r.db").string()), std::string::npos) << error;
  EXPECT_NE(error.find("disk is full"), std::string::npos) << error;
  const long rows = std::stol(testing::read_text(dir_ / "rows"));
  EXPECT_GE(rows, 1);
  // The rest of the batch in flight when the disk filled is not dropped: each result the store
  // refused is listed, one JSON object per line, and none of them is a stored row.
  EXPECT_NE(error.find("could not be stored"), std::string::npos) << error;
  const std::string stored = testing::read_text(dir_ / "hashes");
  std::istringstream lines(error);
  int listed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  {", 0) != 0) continue;
    const auto result = nlohmann::json::parse(line);
    EXPECT_TRUE(result.at("config").is_object()) << line;
    EXPECT_FALSE(result.at("outcome").get<std::string>().empty()) << line;
    EXPECT_EQ(stored.find(result.at("config_hash").get<std::string>()), std::string::npos) << line;
    ++listed;
  }
  EXPECT_GE(listed, 1) << error;
  const auto rerun = report("b.json");
  EXPECT_EQ(count(rerun, "ok"), 4u) << rerun.dump();
  // The default config at least is read back (the search may ask other configs than before).
  EXPECT_GE(rerun.at("resumed").get<long>(), 1) << rerun.dump();
}

}  // namespace
}  // namespace cutune
