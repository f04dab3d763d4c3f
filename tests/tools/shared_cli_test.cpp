// Issue 30: `cutune tune` run as the user runs it (the built tool, real compiler, worker and
// store) when a run dies under it: killed with SIGKILL mid-measurement, the same command run again
// resumes at once and ends with a decision, on SQLite and on PostgreSQL (the ctest fixture's
// server); a participant that waits on a live one says what it waits for, and SIGINT ends the
// wait. Times are printed for docs/perf.md, not asserted: every wait below is on a fact.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "store/postgres_testing.hpp"
#include "store/store_testing.hpp"

namespace cutune {
namespace {

using Clock = std::chrono::steady_clock;
using testing::TempDir;

// The tool on the matmul example, its output in `name`.out and .err under dir, its caches there.
std::string tune_command(const TempDir& dir, const std::string& db, const std::string& name,
                         int budget) {
  return fmt::format(
      "XDG_CACHE_HOME='{0}/cache' exec '{1}' tune '{2}/cpu/matmul/matmul.json' --budget {3} "
      "--problem m=312,n=312,k=312 --no-warm-start --db '{4}' >'{0}/{5}.out' 2>'{0}/{5}.err'",
      dir.path().string(), CUTUNE_TOOL, CUTUNE_EXAMPLES_DIR, budget, db, name);
}

// Starts `command` (sh -c; it execs the tool, so the pid is the tool's).
pid_t start(const std::string& command) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The exit status, or 128 + the signal that ended it.
int wait_for(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// One number from the store, PostgreSQL (a URL) or SQLite (a path).
std::int64_t count(const std::string& db, const std::string& sql) {
  if (db.starts_with("postgresql://")) return postgres::Connection(db).run(sql).integer(0, 0);
  const auto result = testing::run_command(fmt::format("sqlite3 '{}' \"{}\"", db, sql), true);
  return result.status == 0 && !result.output.empty() ? std::stoll(result.output) : 0;
}

// Polls until `fact` holds or the tool `pid` has ended (then the test fails on what it printed).
template <typename Fact>
bool wait_until(pid_t pid, Fact fact) {
  while (!fact()) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Item 1 of the issue: kill -9 mid-tune, then the same command again.
void rerun_after_kill(const std::string& db) {
  Store::open(db);  // the schema, for the counts below
  const TempDir dir;
  const pid_t first = start(tune_command(dir, db, "first", 24));
  ASSERT_TRUE(wait_until(first, [&] {
    return count(db, "SELECT count(*) FROM measurements") >= 2;
  })) << testing::read_text(dir / "first.err");
  kill(first, SIGKILL);
  const auto killed = Clock::now();
  ASSERT_EQ(wait_for(first), 128 + SIGKILL);
  const std::int64_t before = count(db, "SELECT count(*) FROM measurements");

  const pid_t rerun = start(tune_command(dir, db, "rerun", 24));
  const bool measured =
      wait_until(rerun, [&] { return count(db, "SELECT count(*) FROM measurements") > before; });
  const double to_first_result = seconds_since(killed);
  EXPECT_EQ(wait_for(rerun), 0) << testing::read_text(dir / "rerun.err");
  const double to_decision = seconds_since(killed);
  EXPECT_TRUE(measured);
  EXPECT_NE(testing::read_text(dir / "rerun.out").find("winning config"), std::string::npos)
      << testing::read_text(dir / "rerun.out");
  EXPECT_EQ(count(db, "SELECT count(*) FROM decisions"), 1);
  std::cout << (db.starts_with("postgresql://") ? "PostgreSQL" : "SQLite")
            << ": after the kill, the rerun's first result in " << to_first_result
            << " s, its decision in " << to_decision << " s\n";
}

TEST(SharedCli, ARerunAfterKillNineResumesAtOnceAndDecidesOnSQLite) {
  const TempDir store;
  rerun_after_kill((store / "results.db").string());
}

TEST(SharedCli, ARerunAfterKillNineResumesAtOnceAndDecidesOnPostgreSQL) {
  rerun_after_kill(testing::fresh_postgres_database());
}

// Whether the participants on `db` (all stopped but the caller) hold a claim and are between two
// transactions: one stopped inside a transaction holds row locks the next participant would block
// on, and the server ends such a session (idle_in_transaction_session_timeout), orphaning its
// claims, so the next one would not wait.
bool holding_a_claim_between_transactions(const std::string& db) {
  return count(db,
               "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
               "pid <> pg_backend_pid() AND state <> 'idle'") == 0 &&
         count(db, "SELECT count(*) FROM claims WHERE config_json <> ''") >= 1;
}

// A participant stopped (SIGSTOP) is alive: its claims stay its own, so a second one waits on
// them, says so, and ends at SIGINT with exit status 130.
TEST(SharedCli, AParticipantWaitingOnALiveOneSaysWhatItWaitsForAndSigintEndsTheWait) {
  const std::string db = testing::fresh_postgres_database();
  Store::open(db);
  const TempDir dir;
  const pid_t live = start(tune_command(dir, db, "live", 12));
  for (bool stopped = false; !stopped;) {
    ASSERT_TRUE(wait_until(live, [&] {
      return count(db, "SELECT count(*) FROM measurements") >= 1 &&
             count(db, "SELECT count(*) FROM claims WHERE config_json <> ''") >= 1;
    })) << testing::read_text(dir / "live.err");
    kill(live, SIGSTOP);
    int stop_status = 0;
    ASSERT_EQ(waitpid(live, &stop_status, WUNTRACED), live);
    ASSERT_TRUE(WIFSTOPPED(stop_status)) << testing::read_text(dir / "live.err");
    stopped = holding_a_claim_between_transactions(db);
    if (!stopped) kill(live, SIGCONT);
  }
  const pid_t waiting = start(tune_command(dir, db, "waiting", 12));
  const bool said = wait_until(waiting, [&] {
    return testing::read_text(dir / "waiting.err").find("waiting for") != std::string::npos;
  });
  kill(waiting, SIGINT);
  const int status = wait_for(waiting);
  kill(live, SIGKILL);
  kill(live, SIGCONT);
  wait_for(live);
  const std::string err = testing::read_text(dir / "waiting.err");
  EXPECT_TRUE(said) << err;
  EXPECT_NE(err.find("@"), std::string::npos) << err;  // names the participant: id@host:pid
  EXPECT_EQ(status, 130) << err << testing::read_text(dir / "waiting.out");
}

}  // namespace
}  // namespace cutune
