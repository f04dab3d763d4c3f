// The store across real processes: a writer killed with SIGKILL, and writers racing on one file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <set>

#include "store_testing.hpp"

namespace cutune {
namespace {

using testing::gemm_key;
using testing::TempDir;
using testing::timed;

// Forks a child that runs body() and exits with its status; the child never returns into gtest.
template <typename Body>
pid_t spawn(Body body) {
  const pid_t child = fork();
  if (child == 0) {
    int status = 1;
    try {
      status = body();
    } catch (const std::exception& error) {
      fmt::print(stderr, "child {}: {}\n", getpid(), error.what());
    }
    _exit(status);
  }
  return child;
}

int exit_status(pid_t child) {
  int status = 0;
  if (waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string integrity(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nullptr);
  std::string result = "no answer";
  if (sqlite3_step(statement) == SQLITE_ROW) {
    result = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return result;
}

TEST(StoreProcesses, SigkilledWriterLosesNoCommittedResultAndTheTuneResumes) {
  TempDir dir;
  const auto path = dir / "results.db";
  int reports[2];
  ASSERT_EQ(pipe(reports), 0);
  // The child records config i, then reports i: every reported i was committed before the kill.
  const pid_t writer = spawn([&] {
    close(reports[0]);
    auto store = Store::open(path);
    for (int i = 0;; ++i) {
      store.record(timed(gemm_key(), i, 1.0 + i));
      if (write(reports[1], &i, sizeof i) != sizeof i) return 2;
    }
  });
  ASSERT_GT(writer, 0);
  close(reports[1]);
  std::set<int> reported;
  int i = 0;
  while (reported.size() < 150 && read(reports[0], &i, sizeof i) == sizeof i) reported.insert(i);
  kill(writer, SIGKILL);
  EXPECT_EQ(exit_status(writer), 128 + SIGKILL);
  while (read(reports[0], &i, sizeof i) == sizeof i) reported.insert(i);
  close(reports[0]);
  ASSERT_GE(reported.size(), 150u);

  EXPECT_EQ(integrity(path), "ok");
  auto store = Store::open(path);
  const auto stored = store.results(gemm_key());
  // Rows are the prefix 0..n-1 of what the child wrote: nothing torn, nothing skipped.
  ASSERT_GE(stored.size(), reported.size());
  for (std::size_t row = 0; row < stored.size(); ++row) {
    EXPECT_EQ(stored[row].config_hash, fmt::format("cfg-{}", row));
  }
  // A resumed tune measures only what find() does not know.
  const int candidates = static_cast<int>(stored.size()) + 100;
  int to_measure = 0;
  for (int config = 0; config < candidates; ++config) {
    const auto known = store.find(gemm_key(), fmt::format("cfg-{}", config));
    if (known) {
      EXPECT_DOUBLE_EQ(known->time_ms, 1.0 + config);
    } else {
      ++to_measure;
    }
  }
  EXPECT_EQ(to_measure, 100);
  store.record(timed(gemm_key(), candidates, 0.5));
  EXPECT_EQ(store.best(gemm_key(), 1).at(0).config_hash, fmt::format("cfg-{}", candidates));
}

TEST(StoreProcesses, TwoWritersAtOnceOnAFreshFileLoseNothing) {
  TempDir dir;
  const auto path = dir / "results.db";
  constexpr int kRowsEach = 200;
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> writers;
  for (const std::string tune : {"tune-a", "tune-b"}) {
    writers.push_back(spawn([&, tune] {
      close(start[1]);
      char go = 0;
      if (read(start[0], &go, 1) != 0) return 2;  // released together when the pipe closes
      auto store = Store::open(path);             // both create the schema at once
      for (int i = 0; i < kRowsEach; ++i) {
        // Half the rows share a key, half go to keys of their own writer.
        const auto key = i % 2 == 0 ? gemm_key() : gemm_key(fmt::format("m={},tune={}", i, tune));
        store.record(timed(key, i, 1.0, tune));
      }
      return 0;
    }));
  }
  close(start[0]);
  close(start[1]);
  for (const pid_t writer : writers) EXPECT_EQ(exit_status(writer), 0);

  auto store = Store::open(path, OpenMode::read_only);
  std::map<std::string, int> rows_per_tune;
  int rows = 0;
  for (const TuningKey& key : store.keys()) {
    for (const StoredResult& result : store.results(key)) {
      ++rows_per_tune[result.tune_id];
      ++rows;
    }
  }
  EXPECT_EQ(rows, 2 * kRowsEach);
  EXPECT_EQ(rows_per_tune["tune-a"], kRowsEach);
  EXPECT_EQ(rows_per_tune["tune-b"], kRowsEach);
  EXPECT_EQ(store.keys().size(), 1u + kRowsEach);
  EXPECT_EQ(store.measurement_count(gemm_key()), kRowsEach);
  EXPECT_EQ(integrity(path), "ok");
}

}  // namespace
}  // namespace cutune
