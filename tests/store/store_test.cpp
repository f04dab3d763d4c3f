#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>

#include "hash/content_hash.hpp"
#include "store_testing.hpp"

namespace cutune {
namespace {

using testing::failed;
using testing::gemm_key;
using testing::TempDir;
using testing::timed;

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs SQL on the file with the plain sqlite3 API, outside the Store; returns the first column
// of the last row.
std::string raw_sql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string value;
  char* error = nullptr;
  const int code = sqlite3_exec(
      db, sql.c_str(),
      [](void* out, int, char** columns, char**) {
        *static_cast<std::string*>(out) = columns[0] != nullptr ? columns[0] : "NULL";
        return 0;
      },
      &value, &error);
  EXPECT_EQ(code, SQLITE_OK) << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return value;
}

std::string error_of(const std::filesystem::path& path, OpenMode mode) {
  try {
    Store::open(path, mode);
  } catch (const StoreError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Outcome, NamesRoundTrip) {
  for (const Outcome outcome : {Outcome::ok, Outcome::invalid_config, Outcome::compile_error,
                                Outcome::compile_timeout, Outcome::crash, Outcome::hang,
                                Outcome::wrong_result, Outcome::launch_error, Outcome::transient}) {
    EXPECT_EQ(outcome_from_string(to_string(outcome)), outcome);
  }
  EXPECT_EQ(to_string(Outcome::wrong_result), "wrong_result");
  EXPECT_FALSE(outcome_from_string("segfault").has_value());
}

TEST(TuningKey, CanonicalTextSeparatesFieldsAndHashIsStable) {
  const TuningKey a{"gemm", "v1", "m=1", "dev", "tc"};
  const TuningKey shifted{"gemm", "v1", "m=1,", "dev", "tc"};
  const TuningKey moved_comma{"gemm", "v1", "m=1", ",dev", "tc"};
  EXPECT_EQ(a.canonical(), R"(["gemm","v1","m=1","dev","tc"])");
  EXPECT_NE(shifted.canonical(), moved_comma.canonical());
  EXPECT_EQ(a.hash(), TuningKey(a).hash());
  EXPECT_EQ(a.hash().size(), 32u);
  EXPECT_NE(a.hash(), shifted.hash());
  // The content hash of the canonical text.
  EXPECT_EQ(TuningKey({"", "", "", "", ""}).hash(),
            hash::content_hash(R"(["","","","",""])").hex());
}

TEST(Store, InMemoryStoresKeepResultsAndShareNothing) {
  auto first = Store::in_memory();
  auto second = Store::in_memory();
  first.record(timed(gemm_key(), 128, 0.5));
  ASSERT_EQ(first.results(gemm_key()).size(), 1u);
  EXPECT_EQ(first.results(gemm_key())[0].measurement.time_ms, 0.5);
  EXPECT_TRUE(second.results(gemm_key()).empty());
}

TEST(Store, RecordsAndReadsBackEveryField) {
  TempDir dir;
  auto store = Store::open(dir / "nested/folder/results.db");
  EXPECT_TRUE(std::filesystem::exists(dir / "nested/folder/results.db"));
  StoredResult ok = timed(gemm_key(), 128, 0.731);
  ok.measurement.times_ms = {0.74, 0.731, 0.72};
  StoredResult crashed = failed(gemm_key(), 256, Outcome::crash, "signal 11 (SIGSEGV)");
  crashed.tune_id = "tune-2";
  store.record(ok);
  store.record(crashed);

  const auto results = store.results(gemm_key());
  ASSERT_EQ(results.size(), 2u);
  const StoredResult& first = results[0];
  EXPECT_EQ(first.key, gemm_key());
  EXPECT_EQ(first.config_hash, "cfg-128");
  EXPECT_EQ(first.config_json, ok.config_json);
  EXPECT_EQ(first.measurement.outcome, Outcome::ok);
  EXPECT_DOUBLE_EQ(first.measurement.time_ms, 0.731);
  EXPECT_DOUBLE_EQ(first.measurement.iqr_spread, 0.005);
  EXPECT_DOUBLE_EQ(first.measurement.spread, 0.02);
  EXPECT_DOUBLE_EQ(first.measurement.min_ms, 0.731 * 0.99);
  EXPECT_DOUBLE_EQ(first.measurement.max_ms, 0.731 * 1.01);
  EXPECT_EQ(first.measurement.repetitions, 100);
  EXPECT_DOUBLE_EQ(first.measurement.compile_s, 1.5);
  EXPECT_DOUBLE_EQ(first.measurement.max_rel_error, 1e-3);
  EXPECT_EQ(first.tune_id, "tune-1");
  EXPECT_DOUBLE_EQ(first.timestamp, 1.8e9);
  EXPECT_EQ(first.measurement.device, 1);
  EXPECT_EQ(first.measurement.device_name, "NVIDIA H200");
  EXPECT_EQ(first.measurement.times_ms, (std::vector<double>{0.74, 0.731, 0.72}));  // in order
  const StoredResult& second = results[1];
  EXPECT_EQ(second.measurement.outcome, Outcome::crash);
  EXPECT_TRUE(std::isnan(second.measurement.time_ms));
  EXPECT_TRUE(std::isnan(second.measurement.max_rel_error));
  EXPECT_TRUE(std::isnan(second.measurement.iqr_spread));
  EXPECT_TRUE(std::isnan(second.measurement.min_ms));
  EXPECT_EQ(second.measurement.detail, "signal 11 (SIGSEGV)");
  EXPECT_EQ(second.tune_id, "tune-2");
  EXPECT_EQ(second.measurement.device, -1);  // no device named: none kept
  EXPECT_EQ(second.measurement.device_name, "");
  EXPECT_TRUE(second.measurement.times_ms.empty());
  EXPECT_EQ(store.measurement_count(gemm_key()), 2);
}

TEST(Store, FindGivesTheLatestMeasurementOfAConfig) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  EXPECT_FALSE(store.find(gemm_key(), "cfg-128").has_value());
  store.record(timed(gemm_key(), 128, 0.9));
  store.record(timed(gemm_key(), 128, 0.8));
  store.record(timed(gemm_key("m=1,n=1,k=1,dtype=bf16"), 128, 5.0));
  const auto found = store.find(gemm_key(), "cfg-128");
  ASSERT_TRUE(found.has_value());
  EXPECT_DOUBLE_EQ(found->time_ms, 0.8);
  EXPECT_FALSE(store.find(gemm_key(), "cfg-64").has_value());
  TuningKey other_toolchain = gemm_key();
  other_toolchain.toolchain = "nvcc 12.8";
  EXPECT_FALSE(store.find(other_toolchain, "cfg-128").has_value());
}

// Issue 17: a transient failure (worker killed from outside, disk full) is kept as a row but is
// no verdict: resuming measures the config again, and an older verdict still stands.
TEST(Store, FindPassesOverTransientFailures) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  store.record(failed(gemm_key(), 128, Outcome::transient, "killed from outside 3 times"));
  EXPECT_FALSE(store.find(gemm_key(), "cfg-128").has_value());
  EXPECT_EQ(store.measurement_count(gemm_key()), 1);
  store.record(timed(gemm_key(), 128, 0.7));
  store.record(failed(gemm_key(), 128, Outcome::transient, "No space left on device"));
  const auto found = store.find(gemm_key(), "cfg-128");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->outcome, Outcome::ok);
  EXPECT_DOUBLE_EQ(found->time_ms, 0.7);
}

// Issue 17: a transient row after an ok one is no verdict on the config, so best(), deployed()
// and best_per_key() still see the ok one; a real verdict after it (wrong_result) still counts.
TEST(Store, ATransientRowAfterAnOkOneDoesNotHideTheConfig) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const TuningKey key = gemm_key();
  store.record(timed(key, 64, 1.0));
  store.record(timed(key, 128, 0.7));
  store.record(failed(key, 128, Outcome::transient, "killed from outside 3 times"));
  const auto best = store.best(key, 2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].config_hash, "cfg-128");
  EXPECT_DOUBLE_EQ(best[0].measurement.time_ms, 0.7);
  EXPECT_EQ(store.deployed(key)->config_hash, "cfg-128");
  ASSERT_EQ(store.best_per_key().size(), 1u);
  EXPECT_EQ(store.best_per_key()[0].config_hash, "cfg-128");
  store.record(failed(key, 128, Outcome::wrong_result, "wrong on the 3rd call"));
  store.record(failed(key, 128, Outcome::transient, "No space left on device"));
  ASSERT_EQ(store.best(key, 2).size(), 1u);
  EXPECT_EQ(store.best(key, 2)[0].config_hash, "cfg-64");
}

// The rule best() judges by, per config: a re-measurement supersedes, a transient row is no verdict
// (the one before it stands; a config with only transient rows has none); in the order the configs
// were first measured.
TEST(Store, LatestResultsAreEachConfigsLatestVerdict) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const TuningKey key = gemm_key();
  store.record(timed(key, 64, 1.0));
  store.record(failed(key, 512, Outcome::transient, "killed from outside 3 times"));
  store.record(timed(key, 128, 0.7));
  store.record(failed(key, 128, Outcome::transient, "No space left on device"));
  store.record(failed(key, 256, Outcome::compile_error, "tile too big"));
  store.record(timed(key, 64, 3.0));  // re-benchmark: slower
  const auto latest = store.latest_results(key);
  ASSERT_EQ(latest.size(), 3u);
  EXPECT_EQ(latest[0].config_hash, "cfg-64");
  EXPECT_DOUBLE_EQ(latest[0].measurement.time_ms, 3.0);
  EXPECT_EQ(latest[1].config_hash, "cfg-128");
  EXPECT_EQ(latest[1].measurement.outcome, Outcome::ok);
  EXPECT_EQ(latest[2].config_hash, "cfg-256");
  EXPECT_EQ(latest[2].measurement.outcome, Outcome::compile_error);
  EXPECT_TRUE(store.latest_results(gemm_key("m=1,n=1,k=1,dtype=f32")).empty());
}

TEST(Store, BestJudgesEachConfigByItsLatestMeasurement) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const TuningKey key = gemm_key();
  store.record(timed(key, 64, 1.0));
  store.record(timed(key, 128, 2.0));
  store.record(failed(key, 256, Outcome::wrong_result, "max rel error 0.3"));
  store.record(timed(key, 32, 0.5));
  store.record(timed(key, 64, 3.0));                                 // re-benchmark: slower
  store.record(failed(key, 32, Outcome::crash, "illegal address"));  // re-run crashed

  const auto best = store.best(key, 10);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].config_hash, "cfg-128");
  EXPECT_EQ(best[1].config_hash, "cfg-64");
  EXPECT_DOUBLE_EQ(best[1].measurement.time_ms, 3.0);
  ASSERT_EQ(store.best(key, 1).size(), 1u);
  EXPECT_TRUE(store.best(gemm_key("m=8,n=8,k=8,dtype=f32"), 3).empty());
}

TEST(Store, KeysAndBestPerKeyAreSortedAndFiltered) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const TuningKey small = gemm_key("m=1024,n=1024,k=1024,dtype=bf16");
  const TuningKey large = gemm_key("m=8192,n=8192,k=8192,dtype=bf16");
  TuningKey on_cpu{"softmax", "src-9", "rows=4096,cols=1024", "cpu x86-64", "g++ 12"};
  store.record(timed(large, 128, 9.0));
  store.record(timed(small, 64, 0.2));
  store.record(timed(small, 128, 0.1));
  store.record(failed(on_cpu, 1, Outcome::compile_error, "error: expected ';'"));
  store.record(timed(on_cpu, 2, 0.05));

  const auto keys = store.keys();
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], small);
  EXPECT_EQ(keys[1], large);
  EXPECT_EQ(keys[2], on_cpu);
  EXPECT_EQ(store.keys({.family = "softmax"}).size(), 1u);
  EXPECT_EQ(store.keys({.device = "NVIDIA H200 sm_90"}).size(), 2u);
  EXPECT_TRUE(store.keys({.family = "gemm", .device = "cpu x86-64"}).empty());

  const auto best = store.best_per_key();
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].key, small);
  EXPECT_EQ(best[0].config_hash, "cfg-128");
  EXPECT_EQ(best[1].key, large);
  EXPECT_EQ(best[2].config_hash, "cfg-2");
  EXPECT_EQ(store.best_per_key({.family = "gemm"}).size(), 2u);
}

TEST(Store, UsesWriteAheadLogging) {
  TempDir dir;
  {
    auto store = Store::open(dir / "results.db");
    store.record(timed(gemm_key(), 128, 1.0));
  }
  EXPECT_EQ(raw_sql(dir / "results.db", "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw_sql(dir / "results.db", "SELECT value FROM cutune_meta WHERE name = 'format'"),
            "cutune-results");
}

TEST(Store, RejectsAConfigThatIsNotAJsonObject) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  StoredResult bad = timed(gemm_key(), 128, 1.0);
  bad.config_json = "[128, true]";
  try {
    store.record(bad);
    FAIL() << "recorded a config that is not an object";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("cfg-128"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("not a JSON object"), std::string::npos);
  }
  EXPECT_EQ(store.measurement_count(gemm_key()), 0);
}

TEST(Store, RejectsAnOkMeasurementWithoutATime) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  StoredResult untimed = timed(gemm_key(), 128, NAN);
  EXPECT_THROW(store.record(untimed), StoreError);
  untimed.measurement.time_ms = -1.0;
  EXPECT_THROW(store.record(untimed), StoreError);
  EXPECT_EQ(store.measurement_count(gemm_key()), 0);
}

TEST(Store, DamagedPagesGiveAStoreErrorNotACrash) {
  TempDir dir;
  const auto path = dir / "results.db";
  {
    auto store = Store::open(path);
    for (int i = 0; i < 200; ++i) store.record(timed(gemm_key(), i, 1.0 + i));
  }
  // Keep the first page (header and schema) and scribble over the rest, as a bad disk might.
  std::string bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 3 * 4096u);
  std::mt19937 random(11);
  for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(random());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  try {
    auto store = Store::open(path, OpenMode::read_only);
    store.best_per_key();
    FAIL() << "read a damaged store without noticing";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("corrupt"), std::string::npos) << error.what();
  }
}

TEST(Store, CorruptFileGivesAClearErrorAndIsLeftAlone) {
  TempDir dir;
  const auto path = dir / "results.db";
  std::string noise(4096, '\0');
  std::mt19937 random(7);
  for (char& c : noise) c = static_cast<char>(random());
  std::ofstream(path, std::ios::binary) << noise;

  for (const OpenMode mode : {OpenMode::read_write, OpenMode::read_only}) {
    const std::string error = error_of(path, mode);
    EXPECT_NE(error.find(path.string()), std::string::npos) << error;
    EXPECT_NE(error.find("not an SQLite database"), std::string::npos) << error;
  }
  EXPECT_EQ(read_bytes(path), noise);
}

TEST(Store, ForeignSqliteDatabaseGivesAClearErrorAndIsLeftAlone) {
  TempDir dir;
  const auto path = dir / "app.db";
  raw_sql(path, "CREATE TABLE users(name TEXT); INSERT INTO users VALUES('ada'); SELECT 1");
  const std::string before = read_bytes(path);
  for (const OpenMode mode : {OpenMode::read_write, OpenMode::read_only}) {
    const std::string error = error_of(path, mode);
    EXPECT_NE(error.find(path.string()), std::string::npos) << error;
    EXPECT_NE(error.find("another program (tables: users)"), std::string::npos) << error;
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(raw_sql(path, "PRAGMA journal_mode"), "delete");
}

TEST(Store, StoreFromANewerCutuneGivesAClearError) {
  TempDir dir;
  const auto path = dir / "results.db";
  Store::open(path).record(timed(gemm_key(), 128, 1.0));
  raw_sql(path, "UPDATE cutune_meta SET value = '7' WHERE name = 'schema_version'; SELECT 1");
  const std::string error = error_of(path, OpenMode::read_only);
  EXPECT_NE(error.find("schema version '7'"), std::string::npos) << error;
  EXPECT_NE(error.find("newer cutune"), std::string::npos) << error;
}

TEST(Store, ReadOnlyOpenOfAMissingOrEmptyFileFails) {
  TempDir dir;
  EXPECT_NE(error_of(dir / "absent.db", OpenMode::read_only).find("no such file"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "absent.db"));
  std::ofstream(dir / "empty.db").close();
  EXPECT_NE(error_of(dir / "empty.db", OpenMode::read_only).find("no cutune results store"),
            std::string::npos);
  EXPECT_NE(error_of(dir.path(), OpenMode::read_write).find("a folder"), std::string::npos);
}

// The deployment case of the runtime: a store shipped read-only in a read-only folder, where
// SQLite cannot create the WAL index beside it. As root, permissions do not bind, so the check
// runs in a child that gives up root first.
TEST(Store, ReadOnlyFileInReadOnlyFolderOpensReadOnly) {
  TempDir dir;
  const auto folder = dir / "deploy";
  const auto path = folder / "results.db";
  {
    auto store = Store::open(path);
    store.record(timed(gemm_key(), 128, 0.7));
    store.record(timed(gemm_key(), 64, 0.6));
  }
  ASSERT_FALSE(std::filesystem::exists(path.string() + "-wal"));
  ASSERT_FALSE(std::filesystem::exists(path.string() + "-shm"));
  namespace fs = std::filesystem;
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  fs::permissions(dir.path(), fs::perms::others_exec | fs::perms::group_exec,
                  fs::perm_options::add);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    constexpr uid_t kNobody = 65534;
    if (geteuid() == 0 && (setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(10);
    if (access(path.c_str(), R_OK) != 0) _exit(20);  // a private TMPDIR hides it from nobody
    int status = 0;
    try {
      auto store = Store::open(path, OpenMode::read_only);
      const auto best = store.best(gemm_key(), 5);
      if (best.size() != 2 || best[0].config_hash != "cfg-64") status = 11;
      try {
        store.record(timed(gemm_key(), 32, 0.1));
        status = 12;
      } catch (const StoreError&) {
      }
    } catch (const std::exception& error) {
      fmt::print(stderr, "{}\n", error.what());
      status = 13;
    }
    _exit(status);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 20) GTEST_SKIP() << "the temporary folder is private to root";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: cannot drop root, 11: wrong rows, 12: wrote to a "
                                       "read-only store, 13: open or read failed";
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-shm"));
}

// A store as cutune wrote it before measurements kept the robust spread, the extremes and the
// measuring device (iqr_spread, min_ms, max_ms, device_index, device_name) and before decisions:
// schema version 1 as first released, with one timed row.
void write_store_without_robust_spread(const std::filesystem::path& path) {
  raw_sql(path, R"sql(
CREATE TABLE cutune_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE tuning_keys(
  id INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  family_version TEXT NOT NULL,
  problem TEXT NOT NULL,
  device TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  UNIQUE(family, family_version, problem, device, toolchain));
CREATE TABLE measurements(
  id INTEGER PRIMARY KEY,
  key_id INTEGER NOT NULL REFERENCES tuning_keys(id),
  config_hash TEXT NOT NULL,
  config_json TEXT NOT NULL,
  outcome TEXT NOT NULL,
  time_ms REAL,
  spread REAL,
  repetitions INTEGER NOT NULL,
  compile_s REAL NOT NULL,
  max_rel_error REAL,
  detail TEXT NOT NULL,
  tune_id TEXT NOT NULL,
  timestamp REAL NOT NULL);
CREATE INDEX measurements_by_config ON measurements(key_id, config_hash, id);
CREATE VIEW latest_per_config AS
  SELECT * FROM (
    SELECT m.*, row_number() OVER (PARTITION BY m.key_id, m.config_hash ORDER BY m.id DESC)
      AS newness
    FROM measurements m)
  WHERE newness = 1;
CREATE VIEW best_per_key AS
  SELECT * FROM (
    SELECT l.*, row_number() OVER (PARTITION BY l.key_id ORDER BY l.time_ms, l.id) AS position
    FROM latest_per_config l
    WHERE l.outcome = 'ok')
  WHERE position = 1;
INSERT INTO cutune_meta VALUES('format', 'cutune-results'), ('schema_version', '1');
INSERT INTO tuning_keys VALUES(1, 'gemm', 'src-1a2b', 'm=2048,n=4096,k=4096,dtype=bf16',
  'NVIDIA H200 sm_90', 'nvcc 13.0, driver 580');
INSERT INTO measurements VALUES(1, 1, 'cfg-128', '{"block_m": 128}', 'ok', 0.8, 0.35, 100, 1.5,
  1e-3, '', 'tune-0', 1.7e9);
SELECT 1)sql");
}

const char* kAddedColumnsQuery =
    "SELECT count(*) FROM pragma_table_info('measurements') WHERE name IN "
    "('iqr_spread', 'min_ms', 'max_ms', 'device_index', 'device_name', 'times_json')";

TEST(Store, OlderStoreReadsReadOnlyAndIsLeftAlone) {
  TempDir dir;
  const auto path = dir / "results.db";
  write_store_without_robust_spread(path);
  const std::string before = read_bytes(path);
  {
    auto store = Store::open(path, OpenMode::read_only);
    const auto best = store.best_per_key();
    ASSERT_EQ(best.size(), 1u);
    EXPECT_DOUBLE_EQ(best[0].measurement.time_ms, 0.8);
    EXPECT_DOUBLE_EQ(best[0].measurement.spread, 0.35);
    EXPECT_TRUE(std::isnan(best[0].measurement.iqr_spread));  // unknown, not made up
    EXPECT_TRUE(std::isnan(best[0].measurement.min_ms));
    EXPECT_TRUE(std::isnan(best[0].measurement.max_ms));
    EXPECT_EQ(best[0].measurement.device, -1);  // which device measured it was not kept
    EXPECT_EQ(best[0].measurement.device_name, "");
    EXPECT_EQ(store.best(gemm_key(), 1).at(0).config_hash, "cfg-128");
    EXPECT_TRUE(store.find(gemm_key(), "cfg-128").has_value());
    // No decisions before they were kept: the fastest is deployed, as it was.
    EXPECT_FALSE(store.decision(gemm_key()).has_value());
    EXPECT_EQ(store.deployed(gemm_key())->config_hash, "cfg-128");
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(raw_sql(path, kAddedColumnsQuery), "0");
}

// A store whose latest_per_config predates the transient rule (it counts a transient row as the
// config's latest): read-only, the current rule applies and the file is left alone; opened for
// writing, the view is replaced.
TEST(Store, AStaleLatestViewIsShadowedReadOnlyAndReplacedWhenOpenedForWriting) {
  TempDir dir;
  const auto path = dir / "results.db";
  write_store_without_robust_spread(path);
  raw_sql(path,
          "INSERT INTO measurements VALUES(2, 1, 'cfg-128', '{\"block_m\": 128}', 'transient', "
          "NULL, NULL, 0, 0, NULL, 'killed from outside', 'tune-1', 1.8e9); SELECT 1");
  // The file's own view, queried directly, hides the config: what the store must not do.
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM best_per_key"), "0");
  const std::string before = read_bytes(path);
  {
    auto store = Store::open(path, OpenMode::read_only);
    ASSERT_EQ(store.best(gemm_key(), 1).size(), 1u);
    EXPECT_EQ(store.best_per_key().size(), 1u);
    EXPECT_EQ(store.deployed(gemm_key())->config_hash, "cfg-128");
  }
  EXPECT_EQ(read_bytes(path), before);
  {
    auto store = Store::open(path);
    EXPECT_EQ(store.best(gemm_key(), 1).size(), 1u);
  }
  EXPECT_EQ(raw_sql(path, "SELECT count(*) FROM best_per_key"), "1");
  EXPECT_EQ(raw_sql(path,
                    "SELECT instr(sql, 'transient') > 0 FROM sqlite_schema WHERE name = "
                    "'latest_per_config'"),
            "1");
}

// A store of today's tables with only latest_per_config made by the old rule: read-only, the views
// that name it (best_per_key, deployed_per_key) are shadowed with it, so a key without a decision
// deploys its best by the current rule, and the file is left alone; opened for writing, the file's
// views hold the rule.
TEST(Store, AStaleLatestViewIsShadowedWithTheViewsThatNameIt) {
  TempDir dir;
  const auto path = dir / "results.db";
  const TuningKey key = gemm_key();
  const TuningKey decided = gemm_key("m=128,n=8192,k=8192,dtype=bf16");
  {
    auto store = Store::open(path);
    store.record(timed(key, 64, 1.0));
    store.record(timed(key, 128, 0.7));
    store.record(failed(key, 128, Outcome::transient, "killed from outside 3 times"));
    Decision d;
    d.key = decided;
    d.tune_id = "tune-1";
    d.winner_hash = "cfg-16";
    d.winner_json = R"({"block_m": 16})";
    d.winner_measurement = store.record(timed(decided, 16, 2.0));
    d.default_hash = "cfg-16";
    d.finalists_json = "[]";
    store.record_decision(d);
  }
  raw_sql(path,
          "DROP VIEW latest_per_config; CREATE VIEW latest_per_config AS SELECT * FROM (SELECT "
          "m.*, row_number() OVER (PARTITION BY m.key_id, m.config_hash ORDER BY m.id DESC) AS "
          "newness FROM measurements m) WHERE newness = 1; SELECT 1");
  const std::string deployed_in_file =
      "SELECT d.config_hash FROM deployed_per_key d JOIN tuning_keys k ON k.id = d.key_id WHERE "
      "k.problem = 'm=2048,n=4096,k=4096,dtype=bf16'";
  ASSERT_EQ(raw_sql(path, deployed_in_file), "cfg-64");  // the old rule hides cfg-128
  const std::string before = read_bytes(path);
  {
    auto store = Store::open(path, OpenMode::read_only);
    EXPECT_EQ(store.best(key, 2).size(), 2u);
    EXPECT_EQ(store.deployed(key)->config_hash, "cfg-128");
    EXPECT_EQ(store.deployed(decided)->config_hash, "cfg-16");
    const auto best = store.best_per_key();
    ASSERT_EQ(best.size(), 2u);
    EXPECT_EQ(best[0].key.problem == key.problem ? best[0].config_hash : best[1].config_hash,
              "cfg-128");
  }
  EXPECT_EQ(read_bytes(path), before);
  Store::open(path);
  EXPECT_EQ(raw_sql(path, deployed_in_file), "cfg-128");
}

TEST(Store, OlderStoreGainsItsColumnsAndTablesWhenOpenedForWriting) {
  TempDir dir;
  const auto path = dir / "results.db";
  write_store_without_robust_spread(path);
  auto reader = Store::open(path, OpenMode::read_only);  // prepared before the migration
  {
    auto store = Store::open(path);
    EXPECT_EQ(raw_sql(path, kAddedColumnsQuery), "6");
    EXPECT_EQ(raw_sql(path,
                      "SELECT count(*) FROM sqlite_schema WHERE name IN ('decisions', "
                      "'deployed_per_key')"),
              "2");
    store.record(timed(gemm_key(), 64, 0.6));
    const auto results = store.results(gemm_key());
    ASSERT_EQ(results.size(), 2u);
    EXPECT_DOUBLE_EQ(results[0].measurement.spread, 0.35);
    EXPECT_TRUE(std::isnan(results[0].measurement.iqr_spread));
    EXPECT_DOUBLE_EQ(results[1].measurement.iqr_spread, 0.005);
    EXPECT_DOUBLE_EQ(results[1].measurement.max_ms, 0.6 * 1.01);
    EXPECT_EQ(results[0].measurement.device, -1);
    EXPECT_EQ(results[1].measurement.device, 1);
    EXPECT_EQ(results[1].measurement.device_name, "NVIDIA H200");
    EXPECT_EQ(store.best(gemm_key(), 1).at(0).config_hash, "cfg-64");
  }
  // Opening again finds nothing to add; the reader from before goes on reading.
  EXPECT_EQ(Store::open(path).measurement_count(gemm_key()), 2);
  EXPECT_EQ(reader.best(gemm_key(), 1).at(0).config_hash, "cfg-64");
  EXPECT_EQ(raw_sql(path, "SELECT value FROM cutune_meta WHERE name = 'schema_version'"), "1");
}

TEST(Store, ReadOnlyOpenSeesRowsOfALiveWriter) {
  TempDir dir;
  auto writer = Store::open(dir / "results.db");
  writer.record(timed(gemm_key(), 128, 0.7));
  auto reader = Store::open(dir / "results.db", OpenMode::read_only);
  EXPECT_EQ(reader.measurement_count(gemm_key()), 1);
  writer.record(timed(gemm_key(), 64, 0.6));
  EXPECT_EQ(reader.measurement_count(gemm_key()), 2);
  EXPECT_EQ(reader.best(gemm_key(), 1).at(0).config_hash, "cfg-64");
}

class DefaultPath : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"CUTUNE_DB", "XDG_CACHE_HOME", "HOME"}) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name,
                          value != nullptr ? std::optional<std::string>(value) : std::nullopt);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(DefaultPath, HonoursCutuneDbThenXdgCacheHomeThenHome) {
  setenv("HOME", "/home/ada", 1);
  setenv("XDG_CACHE_HOME", "/var/cache/ada", 1);
  setenv("CUTUNE_DB", "/data/tunes.db", 1);
  EXPECT_EQ(Store::default_path(), "/data/tunes.db");
  unsetenv("CUTUNE_DB");
  EXPECT_EQ(Store::default_path(), "/var/cache/ada/cutune/results.db");
  setenv("XDG_CACHE_HOME", "relative/cache", 1);  // the XDG spec says to ignore relative paths
  EXPECT_EQ(Store::default_path(), "/home/ada/.cache/cutune/results.db");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(Store::default_path(), "/home/ada/.cache/cutune/results.db");
}

}  // namespace
}  // namespace cutune
