// The runtime on the CPU path: real spec, real compiler, real dlopen, real SQLite store.
#include <sqlite3.h>

#include <fstream>
#include <thread>

#include "runtime_testing.hpp"

namespace cutune::testing {
namespace {

RuntimeOptions quiet(RuntimeOptions options = {}) {
  options.on_warning = [](const std::string&) {};
  return options;
}

TEST(Runtime, DefaultNowWithoutStoreLoadsTheDefaultConfigOnce) {
  Runtime runtime(quiet());
  runtime.add_family(scale_family());
  const auto query = runtime.query("test_scale", scale_problem(1000));
  const Kernel& first = runtime.get(query);
  EXPECT_EQ(first.origin(), KernelOrigin::default_config);
  EXPECT_EQ(first.config(),
            default_config(*scale_spec().tuning, query.problem(), Device::host_cpu()));
  expect_scales(first, 1000);
  EXPECT_EQ(&runtime.get(query), &first);  // cached: the same kernel object
  EXPECT_EQ(&runtime.get("test_scale", scale_problem(1000)), &first);
  // Told once, at the first get(): which source answered an untuned shape.
  ASSERT_EQ(runtime.warnings().size(), 1u);
  EXPECT_NE(runtime.warnings()[0].find("default config"), std::string::npos)
      << runtime.warnings()[0];
}

TEST(Runtime, UnknownFamilyAndUndeclaredArgumentAreNamed) {
  Runtime runtime(quiet());
  runtime.add_family(scale_family());
  EXPECT_THROW(
      {
        try {
          (void)runtime.query("gemm", scale_problem(8));
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("unknown kernel family 'gemm'"), std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_THROW((void)runtime.query("test_scale", Problem::parse("m=3")), SpecError);
  EXPECT_THROW(runtime.add_family(scale_family()), std::invalid_argument);
}

TEST(Runtime, StoredWinnerIsLoadedFromAReadOnlyStore) {
  TempDir dir;
  const Family family = scale_family();
  {
    auto store = Store::open(dir / "results.db");
    store.record(scale_result(family, 5000, scale_config(256, 4), 0.01));
    store.record(scale_result(family, 5000, scale_config(8, 1), 0.05));
  }
  Runtime runtime(quiet({.store = dir / "results.db"}));
  runtime.add_family(scale_family());
  const Kernel& kernel = runtime.get("test_scale", scale_problem(5000));
  EXPECT_EQ(kernel.origin(), KernelOrigin::store);
  EXPECT_EQ(kernel.config(), scale_config(256, 4));
  expect_scales(kernel, 5000);
  // An untuned shape near it takes its winner; a far one the default (untuned_rule_test.cpp).
  EXPECT_EQ(runtime.get("test_scale", scale_problem(6000)).origin(), KernelOrigin::nearest);
  EXPECT_EQ(runtime.get("test_scale", scale_problem(6000)).config(), scale_config(256, 4));
  EXPECT_EQ(runtime.get("test_scale", scale_problem(20000)).origin(), KernelOrigin::default_config);
}

TEST(Runtime, StoredWinnerOfAnotherToolchainIsUsed) {
  TempDir dir;
  const Family family = scale_family();
  {
    auto store = Store::open(dir / "results.db");
    StoredResult r = scale_result(family, 5000, scale_config(128, 2), 0.01);
    r.key.toolchain = "the compiler of the tuning machine";
    store.record(r);
  }
  Runtime runtime(quiet({.store = dir / "results.db"}));
  runtime.add_family(scale_family());
  EXPECT_EQ(runtime.get("test_scale", scale_problem(5000)).config(), scale_config(128, 2));
}

TEST(Runtime, CorruptStoreFallsBackToDefaultWithAClearError) {
  TempDir dir;
  {
    std::ofstream out(dir / "results.db", std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>((i * 7919) % 251));
  }
  std::vector<std::string> seen;
  RuntimeOptions options{.store = dir / "results.db"};
  options.on_warning = [&seen](const std::string& w) { seen.push_back(w); };
  Runtime runtime(options);
  ASSERT_TRUE(runtime.store_error().has_value());
  EXPECT_NE(runtime.store_error()->find((dir / "results.db").string()), std::string::npos)
      << *runtime.store_error();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].find("falling back"), std::string::npos) << seen[0];
  runtime.add_family(scale_family());
  const Kernel& kernel = runtime.get("test_scale", scale_problem(300));
  EXPECT_EQ(kernel.origin(), KernelOrigin::default_config);
  expect_scales(kernel, 300);
}

TEST(Runtime, ForeignSqliteDatabaseFallsBackToDefault) {
  TempDir dir;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "other.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE invoices(id INTEGER, total REAL)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  Runtime runtime(quiet({.store = dir / "other.db"}));
  ASSERT_TRUE(runtime.store_error().has_value());
  runtime.add_family(scale_family());
  EXPECT_EQ(runtime.get("test_scale", scale_problem(300)).origin(), KernelOrigin::default_config);
}

TEST(Runtime, MissingStoreFileFallsBackToDefault) {
  TempDir dir;
  Runtime runtime(quiet({.store = dir / "absent.db"}));
  EXPECT_TRUE(runtime.store_error().has_value());
  runtime.add_family(scale_family());
  EXPECT_EQ(runtime.get("test_scale", scale_problem(300)).origin(), KernelOrigin::default_config);
}

TEST(Runtime, StoredConfigTheSpaceRejectsIsReportedAndSkipped) {
  TempDir dir;
  const Family family = scale_family();
  {
    auto store = Store::open(dir / "results.db");
    StoredResult r = scale_result(family, 5000, scale_config(256, 4), 0.01);
    r.config_json = R"({"CHUNK": 256, "UNROL": 4})";
    store.record(r);
  }
  Runtime runtime(quiet({.store = dir / "results.db"}));
  runtime.add_family(scale_family());
  EXPECT_EQ(runtime.get("test_scale", scale_problem(5000)).origin(), KernelOrigin::default_config);
  ASSERT_EQ(runtime.warnings().size(), 1u);
  EXPECT_NE(runtime.warnings()[0].find("UNROL"), std::string::npos) << runtime.warnings()[0];
}

TEST(Runtime, TuneNowRecordsTheTuneAndReturnsItsWinner) {
  TempDir dir;
  RuntimeOptions options = quiet({.store = dir / "results.db",
                                  .store_mode = OpenMode::read_write,
                                  .policy = Policy::tune_now});
  options.tune.max_evaluations = 4;
  options.tune.retime_top = 1;
  options.tune.strategy = "random";
  Runtime runtime(options);
  runtime.add_family(scale_family());
  const auto query = runtime.query("test_scale", scale_problem(2000));
  const Kernel& kernel = runtime.get(query);
  EXPECT_EQ(kernel.origin(), KernelOrigin::tuned);
  expect_scales(kernel, 2000);

  auto store = Store::open(dir / "results.db", OpenMode::read_only);
  const auto keys = store.keys({.family = "test_scale"});
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].problem, "n=2000");
  EXPECT_GE(store.measurement_count(keys[0]), 4);
  // The next runtime finds the winner in the store.
  Runtime deployed(quiet({.store = dir / "results.db"}));
  deployed.add_family(scale_family());
  const Kernel& again = deployed.get("test_scale", scale_problem(2000));
  EXPECT_EQ(again.origin(), KernelOrigin::store);
  // What deploys is the tune's recorded decision, not the fastest single measurement (issue 10).
  ASSERT_TRUE(store.decision(keys[0]).has_value());
  const auto deployed_result = store.deployed(keys[0]);
  ASSERT_TRUE(deployed_result.has_value());
  EXPECT_EQ(again.config().hash_hex(), deployed_result->config_hash);
}

TEST(Runtime, BackgroundTuneServesTheDefaultThenSwapsInTheWinner) {
  RuntimeOptions options = quiet({.policy = Policy::tune_in_background});
  options.tune.max_evaluations = 3;
  options.tune.retime_top = 1;
  options.tune.strategy = "random";
  Runtime runtime(options);
  runtime.add_family(scale_family());
  const auto query = runtime.query("test_scale", scale_problem(3000));
  const Kernel& first = runtime.get(query);
  EXPECT_EQ(first.origin(), KernelOrigin::default_config);
  runtime.wait_for_background();
  const Kernel& later = runtime.get(query);
  EXPECT_EQ(later.origin(), KernelOrigin::tuned);
  EXPECT_NE(&later, &first);
  expect_scales(first, 3000);  // the old kernel stays loaded for whoever still holds it
  expect_scales(later, 3000);
}

TEST(Runtime, ShutdownStopsABackgroundTune) {
  RuntimeOptions options = quiet({.policy = Policy::tune_in_background});
  options.tune.max_evaluations = 1000;
  options.tune.batch_size = 1;
  const auto start = std::chrono::steady_clock::now();
  {
    Runtime runtime(options);
    runtime.add_family(scale_family());
    EXPECT_EQ(runtime.get("test_scale", scale_problem(3000)).origin(),
              KernelOrigin::default_config);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(Runtime, ThreadsAskingAtOnceShareOneKernel) {
  Runtime runtime(quiet());
  runtime.add_family(scale_family());
  const auto query = runtime.query("test_scale", scale_problem(777));
  std::vector<const Kernel*> seen(8);
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 1000; ++i) seen[t] = &runtime.get(query);
      });
    }
  }
  for (const Kernel* k : seen) EXPECT_EQ(k, seen[0]);
}

}  // namespace
}  // namespace cutune::testing
