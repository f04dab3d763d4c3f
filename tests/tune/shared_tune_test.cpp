// Tunes sharing one key through a real PostgreSQL server (the ctest fixture's), each participant
// its own process, on a recorded space (data/spaces) whose evaluator sleeps each config's recorded
// time: the speed-up of several participants then shows without needing more cores.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "cutune/replay.hpp"
#include "cutune/tune.hpp"
#include "store/postgres_testing.hpp"

namespace cutune {
namespace {

using Clock = std::chrono::steady_clock;

// The recorded measurement, after sleeping the recorded time times `scale` (one device busy for
// that long). The tournament's rounds answer without sleeping: it runs once whatever the number
// of participants, and the tests measure what sharing the search saves.

class SleepingReplay : public Evaluator {
 public:
  SleepingReplay(std::shared_ptr<const RecordedSpace> space, double scale)
      : replay_(std::move(space)), scale_(scale) {}
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out = replay_.evaluate(batch);
    for (const Measurement& m : out) {
      if (m.ok())
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(m.time_ms * scale_));
    }
    return out;
  }
  PairedRounds time_rounds(std::span<const Config> configs, int rounds) override {
    return replay_.time_rounds(configs, rounds);
  }
  std::string device_name() const override { return replay_.device_name(); }
  std::string toolchain() const override { return replay_.toolchain(); }

 private:
  ReplayEvaluator replay_;
  double scale_;
};

std::shared_ptr<const RecordedSpace> recorded() {
  static const auto space =
      load_recorded_space(std::string(CUTUNE_TEST_SPACES) + "/convolution_milo/A100.json.gz");
  return space;
}

// The recorded space as a family of its own; its key is the one every participant shares (a
// version of its own gives a tune a key of its own in the same database).
Family convolution(const std::string& version = "replay") {
  Family f;
  f.name = "convolution";
  f.version = version;
  f.tuning = &recorded()->tuning_space();
  return f;
}

TuningKey shared_key(const std::string& version = "replay") {
  const SleepingReplay probe(recorded(), 1.0);
  return convolution(version).key({}, probe.device_name(), probe.toolchain());
}
constexpr std::size_t kBudget = 60;

TuneOptions options(const std::string& tune_id, std::size_t budget = kBudget) {
  TuneOptions o;
  o.max_evaluations = budget;
  o.seed = 7;
  o.batch_size = 4;
  o.finishing = false;
  o.tournament.min_rounds = 3;
  o.tournament.max_rounds = 3;
  o.tune_id = tune_id;
  return o;
}

// Long enough that the search's sleeps, which participants share, outweigh what each pays alone
// (starting, joining, the tournament) on two loaded cores.
constexpr double kScale = 40.0;

// One tune of the recorded space; `version` names its key, `budget` its size.
struct TuneSize {
  std::string version = "replay";
  std::size_t budget = kBudget;
  double scale = kScale;
};

TuneReport tune_on(const std::string& db, const std::string& tune_id, const TuneSize& run = {}) {
  Store store = Store::open(db);
  FamilyEvaluator evaluator{std::make_unique<SleepingReplay>(recorded(), run.scale), {}};
  return tune(convolution(run.version), {}, evaluator, &store, options(tune_id, run.budget));
}

// Starts a participant in a process of its own; it writes its report's counts to `summary`.
// With `gate`, it first waits until `gate` holds `together` lines, one per participant started
// (each writes its own): a participant the loaded machine started after the others had decided
// would join a finished tune and decide it again, which is a later tune, not this test's.
pid_t start_participant(const std::string& db, const std::string& tune_id,
                        const std::string& summary, const std::string& gate = {}, int together = 0,
                        const TuneSize& run = {}) {
  recorded();  // loaded once, before the fork
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid != 0) return pid;
  int status = 1;
  try {
    if (!gate.empty()) {
      std::ofstream(gate, std::ios::app) << tune_id << std::endl;
      for (;;) {
        std::ifstream in(gate);
        int lines = 0;
        for (std::string line; std::getline(in, line);) ++lines;
        if (lines >= together) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    const TuneReport report = tune_on(db, tune_id, run);
    std::ofstream(summary) << nlohmann::json{{"taken_over", report.claims_taken_over},
                                             {"adopted", report.adopted_decision},
                                             {"participant", report.participant}};
    status = 0;
  } catch (const std::exception& error) {
    std::ofstream(summary) << nlohmann::json{{"error", error.what()}};
  }
  _exit(status);
}

bool exited_cleanly(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

nlohmann::json summary_of(const std::string& path) {
  return nlohmann::json::parse(std::ifstream(path), nullptr, false);
}

// Measurement rows per config of the search, the tournament's own rows (one per finalist, after
// the search's) left out.
std::map<std::string, int> search_rows(Store& store, const std::string& version = "replay") {
  std::set<std::string> finalists;
  const auto decision = store.decision(shared_key(version));
  if (decision) {
    for (const auto& f : nlohmann::json::parse(decision->finalists_json)) {
      finalists.insert(f["config_hash"].get<std::string>());
    }
  }
  std::map<std::string, int> rows;
  for (const StoredResult& r : store.results(shared_key(version))) ++rows[r.config_hash];
  for (const std::string& hash : finalists) --rows[hash];
  return rows;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(SharedTune, OneParticipantOnPostgreSQLProposesWhatItWouldOnSQLite) {
  char dir[] = "/tmp/cutune-shared-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const TuneReport on_sqlite = tune_on(std::string(dir) + "/results.db", "single", {.scale = 0});
  const TuneReport on_postgres =
      tune_on(testing::fresh_postgres_database(), "single", {.scale = 0});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(on_postgres.evaluated.size(), on_sqlite.evaluated.size());
  for (std::size_t i = 0; i < on_sqlite.evaluated.size(); ++i) {
    EXPECT_EQ(on_postgres.evaluated[i].config.hash_hex(), on_sqlite.evaluated[i].config.hash_hex())
        << "candidate " << i;
  }
  ASSERT_TRUE(on_sqlite.best && on_postgres.best);
  EXPECT_EQ(on_postgres.best->config.hash_hex(), on_sqlite.best->config.hash_hex());
}

// Starts three participants of `run` together (each in a process of its own) and waits for them;
// how many adopted the decision. Files under /tmp are named by `tag`.
int three_participants(const std::string& db, const std::string& tag, const TuneSize& run = {}) {
  std::vector<pid_t> pids;
  const std::string gate = fmt::format("/tmp/cutune-shared-{}-gate.txt", tag);
  std::filesystem::remove(gate);
  for (int p = 0; p < 3; ++p) {
    pids.push_back(start_participant(db, fmt::format("{}-p{}", tag, p),
                                     fmt::format("/tmp/cutune-shared-{}-{}.json", tag, p), gate, 3,
                                     run));
  }
  int adopted = 0;
  for (int p = 0; p < 3; ++p) {
    const std::string path = fmt::format("/tmp/cutune-shared-{}-{}.json", tag, p);
    EXPECT_TRUE(exited_cleanly(pids[p])) << summary_of(path).dump();
    const nlohmann::json summary = summary_of(path);
    if (!summary.contains("adopted")) continue;
    adopted += summary["adopted"].get<bool>() ? 1 : 0;
    EXPECT_EQ(summary["taken_over"], 0) << tag;  // no participant died: nothing to take over
  }
  return adopted;
}

// Each config of the search measured exactly once under the key, the budget's worth of them.
void expect_each_config_once(Store& store, const TuneSize& run) {
  const std::map<std::string, int> rows = search_rows(store, run.version);
  EXPECT_EQ(rows.size(), run.budget) << run.version;
  for (const auto& [hash, count] : rows) {
    EXPECT_EQ(count, 1) << "config " << hash << " of " << run.version;
  }
  EXPECT_TRUE(store.decision(shared_key(run.version))) << run.version;
}

// However slowly a participant measures, its claims stay its own while it lives: nothing is
// measured twice, and one tournament decides. The wall times are printed, not asserted: a busy
// machine stretches them, and the claims must not care.
TEST(SharedTune, ThreeParticipantsMeasureTheBudgetExactlyOnce) {
  const std::string alone_db = testing::fresh_postgres_database();
  const auto alone_start = Clock::now();
  const pid_t alone = start_participant(alone_db, "alone", "/tmp/cutune-shared-alone.json");
  ASSERT_TRUE(exited_cleanly(alone)) << summary_of("/tmp/cutune-shared-alone.json").dump();
  const double alone_s = seconds_since(alone_start);

  const std::string db = testing::fresh_postgres_database();
  const auto start = Clock::now();
  const int adopted = three_participants(db, "three");
  const double shared_s = seconds_since(start);

  Store alone_store = Store::open(alone_db);
  EXPECT_EQ(search_rows(alone_store).size(), kBudget);
  Store store = Store::open(db);
  expect_each_config_once(store, {});
  EXPECT_EQ(adopted, 2);  // one tournament, its decision adopted by the other two
  std::cout << "three participants: " << shared_s << " s, one: " << alone_s << " s ("
            << shared_s / alone_s << "x)\n";
}

// Processes that spin on every core until the test ends (or dies: they die with it): the load of
// a parallel build, without the build.
class BusyCores {
 public:
  BusyCores() {
    for (unsigned c = 0; c < std::max(2u, std::thread::hardware_concurrency()); ++c) {
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (volatile bool spinning = true; spinning;) {
        }
      }
      pids_.push_back(pid);
    }
  }
  BusyCores(const BusyCores&) = delete;
  BusyCores& operator=(const BusyCores&) = delete;
  ~BusyCores() {
    for (const pid_t pid : pids_) {
      kill(pid, SIGKILL);  // pid > 0: fork's
      waitpid(pid, nullptr, 0);
    }
  }

 private:
  std::vector<pid_t> pids_;
};

// Twenty shared tunes, each under a key of its own, on a machine whose every core another
// process keeps busy, measurements slow enough (tens of ms) that the participants are
// descheduled mid-batch: every config is measured once in every one of them.
TEST(SharedTune, ThreeParticipantsOnALoadedMachineMeasureEachConfigOnceTwentyTimesInTwenty) {
  const std::string db = testing::fresh_postgres_database();
  Store store = Store::open(db);  // the schema, once, before the participants race to make it
  const BusyCores load;
  for (int run = 0; run < 20; ++run) {
    const TuneSize small{.version = fmt::format("loaded-{}", run), .budget = 12, .scale = 4.0};
    // One tournament: the other two adopt its decision.
    EXPECT_EQ(three_participants(db, small.version, small), 2) << small.version;
    expect_each_config_once(store, small);
  }
}

// A participant that starts after the decision finds nothing to measure (the budget is spent)
// and adopts the decision rather than running a tournament of its own.
TEST(SharedTune, AParticipantThatStartsAfterTheDecisionAdoptsIt) {
  const std::string db = testing::fresh_postgres_database();
  const TuneSize small{.budget = 12, .scale = 0};
  const TuneReport first = tune_on(db, "first", small);
  ASSERT_FALSE(first.adopted_decision);
  Store store = Store::open(db);
  const auto decided = store.decision(shared_key());
  ASSERT_TRUE(decided);
  const TuneReport late = tune_on(db, "late", small);
  EXPECT_TRUE(late.adopted_decision);
  EXPECT_FALSE(late.tournament);
  ASSERT_TRUE(late.best);
  EXPECT_EQ(late.best->config.hash_hex(), decided->winner_hash);
  EXPECT_EQ(store.decision(shared_key())->tune_id, "first");  // no second decision
  for (const Evaluated& e : late.evaluated) EXPECT_TRUE(e.from_store) << e.config.to_string();
}

TEST(SharedTune, WhenAParticipantIsKilledTheOthersFinishAndMeasureWhatItHeld) {
  const std::string db = testing::fresh_postgres_database();
  Store::open(db);  // the schema, for the watcher below
  std::vector<pid_t> pids;
  for (int p = 0; p < 3; ++p) {
    pids.push_back(
        start_participant(db, fmt::format("k{}", p), fmt::format("/tmp/cutune-killed-{}.json", p)));
  }
  // Participant 1 is killed once it has written results and holds claims, and what it held is
  // read at that moment. Every claim and record begins by locking its key's row (lock_key): while
  // the watcher holds that lock, no write is half done, no claim changes hands, and a write that
  // waits on it when its participant dies commits nothing, for no client is left to send the
  // commit. A signal alone freezes nothing: what a process sent before it stopped still commits.
  postgres::Connection watch(db);
  const auto count = [&](const std::string& sql) { return watch.run(sql).integer(0, 0); };
  const auto measured = [&] {
    return count("SELECT count(*) FROM measurements WHERE tune_id = 'k1'");
  };
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  std::optional<postgres::Transaction> frozen;
  for (;;) {
    frozen.emplace(watch);
    watch.run("SELECT id FROM tuning_keys FOR UPDATE");
    if (measured() >= 4 &&
        count("SELECT count(*) FROM claims WHERE owner LIKE 'k1@%' AND config_json <> ''") > 0) {
      break;
    }
    frozen.reset();
    ASSERT_LT(Clock::now(), deadline) << "participant k1 never held a claim after 4 results";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const postgres::Result held =
      watch.run("SELECT config_hash FROM claims WHERE owner LIKE 'k1@%' AND config_json <> ''");
  const std::int64_t written = measured();
  ASSERT_GT(pids[1], 0);  // kill(-1) would signal every process
  kill(pids[1], SIGKILL);
  int status = 0;
  waitpid(pids[1], &status, 0);
  frozen.reset();  // rolled back: the others go on, and take its claims over once the server
                   // has ended its session
  ASSERT_GT(held.rows(), 0);
  ASSERT_GE(written, 4);

  std::int64_t taken_over = 0;
  for (int p : {0, 2}) {
    const std::string path = fmt::format("/tmp/cutune-killed-{}.json", p);
    ASSERT_TRUE(exited_cleanly(pids[p])) << summary_of(path).dump();
    taken_over += summary_of(path)["taken_over"].get<std::int64_t>();
  }
  EXPECT_EQ(count("SELECT count(*) FROM measurements WHERE tune_id = 'k1'"), written);
  for (int r = 0; r < held.rows(); ++r) {
    EXPECT_EQ(watch
                  .run("SELECT count(*) FROM measurements WHERE config_hash = $1 AND tune_id <> "
                       "'k1'",
                       {held.text(r, 0)})
                  .integer(0, 0),
              1)
        << "config " << held.text(r, 0) << " the killed participant held";
  }
  EXPECT_EQ(taken_over, held.rows());
  Store store = Store::open(db);
  ASSERT_TRUE(store.decision(shared_key()));
  const std::map<std::string, int> rows = search_rows(store);
  EXPECT_EQ(rows.size(), kBudget);
  for (const auto& [hash, count] : rows) EXPECT_EQ(count, 1) << "config " << hash;
}

}  // namespace
}  // namespace cutune
