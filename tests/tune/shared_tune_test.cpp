// Tunes sharing one key through a real PostgreSQL server (the ctest fixture's), each participant
// its own process, on a recorded space (data/spaces) whose evaluator sleeps each config's recorded
// time: the speed-up of several participants then shows without needing more cores.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
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

// The recorded space as a family of its own; its key is the one every participant shares.
Family convolution() {
  Family f;
  f.name = "convolution";
  f.version = "replay";
  f.tuning = &recorded()->tuning_space();
  return f;
}

TuningKey shared_key() {
  const SleepingReplay probe(recorded(), 1.0);
  return convolution().key({}, probe.device_name(), probe.toolchain());
}
constexpr std::size_t kBudget = 60;

TuneOptions options(const std::string& tune_id) {
  TuneOptions o;
  o.max_evaluations = kBudget;
  o.seed = 7;
  o.batch_size = 4;
  o.finishing = false;
  o.tournament.min_rounds = 3;
  o.tournament.max_rounds = 3;
  o.lease_seconds = 1.0;  // short, so that a killed participant's claims expire within the test
  o.tune_id = tune_id;
  return o;
}

// Long enough that the search's sleeps, which participants share, outweigh what each pays alone
// (starting, joining, the tournament) on two loaded cores.
constexpr double kScale = 40.0;

TuneReport tune_on(const std::string& db, const std::string& tune_id, double scale = kScale) {
  Store store = Store::open(db);
  SleepingReplay evaluator(recorded(), scale);
  return tune(convolution(), {}, evaluator, {}, &store, options(tune_id));
}

// Starts a participant in a process of its own; it writes its report's counts to `summary`.
pid_t start_participant(const std::string& db, const std::string& tune_id,
                        const std::string& summary) {
  recorded();  // loaded once, before the fork
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid != 0) return pid;
  int status = 1;
  try {
    const TuneReport report = tune_on(db, tune_id);
    std::ofstream(summary) << nlohmann::json{{"taken_over", report.leases_taken_over},
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
std::map<std::string, int> search_rows(Store& store) {
  std::set<std::string> finalists;
  const auto decision = store.decision(shared_key());
  if (decision) {
    for (const auto& f : nlohmann::json::parse(decision->finalists_json)) {
      finalists.insert(f["config_hash"].get<std::string>());
    }
  }
  std::map<std::string, int> rows;
  for (const StoredResult& r : store.results(shared_key())) ++rows[r.config_hash];
  for (const std::string& hash : finalists) --rows[hash];
  return rows;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(SharedTune, OneParticipantOnPostgreSQLProposesWhatItWouldOnSQLite) {
  char dir[] = "/tmp/cutune-shared-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const TuneReport on_sqlite = tune_on(std::string(dir) + "/results.db", "single", 0.0);
  const TuneReport on_postgres = tune_on(testing::fresh_postgres_database(), "single", 0.0);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(on_postgres.evaluated.size(), on_sqlite.evaluated.size());
  for (std::size_t i = 0; i < on_sqlite.evaluated.size(); ++i) {
    EXPECT_EQ(on_postgres.evaluated[i].config.hash_hex(), on_sqlite.evaluated[i].config.hash_hex())
        << "candidate " << i;
  }
  ASSERT_TRUE(on_sqlite.best && on_postgres.best);
  EXPECT_EQ(on_postgres.best->config.hash_hex(), on_sqlite.best->config.hash_hex());
}

TEST(SharedTune, ThreeParticipantsMeasureTheBudgetOnceInUnderHalfTheTime) {
  const std::string alone_db = testing::fresh_postgres_database();
  const auto alone_start = Clock::now();
  const pid_t alone = start_participant(alone_db, "alone", "/tmp/cutune-shared-alone.json");
  ASSERT_TRUE(exited_cleanly(alone)) << summary_of("/tmp/cutune-shared-alone.json").dump();
  const double alone_s = seconds_since(alone_start);

  const std::string db = testing::fresh_postgres_database();
  const auto start = Clock::now();
  std::vector<pid_t> pids;
  for (int p = 0; p < 3; ++p) {
    pids.push_back(
        start_participant(db, fmt::format("p{}", p), fmt::format("/tmp/cutune-shared-{}.json", p)));
  }
  int adopted = 0;
  for (int p = 0; p < 3; ++p) {
    const std::string path = fmt::format("/tmp/cutune-shared-{}.json", p);
    ASSERT_TRUE(exited_cleanly(pids[p])) << summary_of(path).dump();
    adopted += summary_of(path)["adopted"].get<bool>() ? 1 : 0;
    EXPECT_EQ(summary_of(path)["taken_over"], 0);  // no participant died: no lease expired
  }
  const double shared_s = seconds_since(start);

  Store alone_store = Store::open(alone_db);
  Store store = Store::open(db);
  const std::map<std::string, int> alone_rows = search_rows(alone_store);
  const std::map<std::string, int> rows = search_rows(store);
  EXPECT_EQ(alone_rows.size(), kBudget);
  EXPECT_EQ(rows.size(), alone_rows.size());
  for (const auto& [hash, count] : rows) EXPECT_EQ(count, 1) << "config " << hash;
  EXPECT_EQ(adopted, 2);  // one tournament, its decision adopted by the other two
  ASSERT_TRUE(store.decision(shared_key()));
  EXPECT_LE(shared_s, 0.45 * alone_s);
  std::cout << "three participants: " << shared_s << " s, one: " << alone_s << " s\n";
}

TEST(SharedTune, WhenAParticipantIsKilledTheOthersFinishAndMeasureWhatItHeld) {
  const std::string db = testing::fresh_postgres_database();
  Store::open(db);  // the schema, for the watcher below
  std::vector<pid_t> pids;
  for (int p = 0; p < 3; ++p) {
    pids.push_back(
        start_participant(db, fmt::format("k{}", p), fmt::format("/tmp/cutune-killed-{}.json", p)));
  }
  // Kill participant 1 once it has written results and holds claims.
  postgres::Connection watch(db);
  const auto count = [&](const std::string& sql) { return watch.run(sql).integer(0, 0); };
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (
      Clock::now() < deadline &&
      (count("SELECT count(*) FROM measurements WHERE tune_id = 'k1'") < 4 ||
       count("SELECT count(*) FROM claims WHERE owner LIKE 'k1@%' AND config_json <> ''") == 0)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GT(pids[1], 0);  // kill(-1) would signal every process
  kill(pids[1], SIGKILL);
  int status = 0;
  waitpid(pids[1], &status, 0);
  const postgres::Result held =
      watch.run("SELECT config_hash FROM claims WHERE owner LIKE 'k1@%' AND config_json <> ''");
  const std::int64_t written = count("SELECT count(*) FROM measurements WHERE tune_id = 'k1'");
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
