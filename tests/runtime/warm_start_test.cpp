// Warm start: tunes of new shapes begin with the winners of the nearest tuned shapes.
#include "cutune/cpu.hpp"
#include "runtime_testing.hpp"

namespace cutune::testing {
namespace {

TEST(WarmStart, NearestWinnersAreOrderedByLogShapeDistance) {
  TempDir dir;
  const Family family = scale_family();
  auto store = Store::open(dir / "results.db");
  store.record(scale_result(family, 1000, scale_config(64, 1), 0.01));
  store.record(scale_result(family, 8000, scale_config(256, 2), 0.02));
  store.record(scale_result(family, 100000, scale_config(512, 8), 0.2));
  store.record(scale_result(family, 1200, scale_config(64, 1), 0.011));  // same winner as 1000
  StoredResult elsewhere = scale_result(family, 1500, scale_config(4, 4), 0.01);
  elsewhere.key.device = "another machine";
  store.record(elsewhere);
  StoredResult foreign = scale_result(family, 1400, scale_config(8, 8), 0.01);
  foreign.config_json = R"({"TILE": 3})";  // an older space's knobs
  store.record(foreign);

  const auto& space = scale_spec().tuning->space;
  const auto nearest =
      nearest_winners(store, family.name, family.device_key, scale_problem(1500), space, 3);
  ASSERT_EQ(nearest.size(), 3u);
  EXPECT_EQ(nearest[0].config, scale_config(64, 1));
  EXPECT_EQ(nearest[0].problem, scale_problem(1200));  // nearer than 1000, same winner
  EXPECT_EQ(nearest[1].config, scale_config(256, 2));
  EXPECT_EQ(nearest[2].config, scale_config(512, 8));
  EXPECT_LT(nearest[0].distance, nearest[1].distance);
  EXPECT_LT(nearest[1].distance, nearest[2].distance);

  // Only the nearest one when asked for one; none of another device.
  EXPECT_EQ(nearest_winners(store, family.name, family.device_key, scale_problem(90000), space, 1)
                .front()
                .config,
            scale_config(512, 8));
  EXPECT_TRUE(
      nearest_winners(store, family.name, "no such device", scale_problem(1500), space, 3).empty());
}

TEST(WarmStart, RuntimeTuneStartsFromTheNearestWinner) {
  TempDir dir;
  const Family family = scale_family();
  const Config neighbour_winner = scale_config(512, 8);
  {
    auto store = Store::open(dir / "results.db");
    store.record(scale_result(family, 1000, neighbour_winner, 0.001));
  }
  RuntimeOptions options{.store = dir / "results.db",
                         .store_mode = OpenMode::read_write,
                         .policy = Policy::tune_now,
                         .warm_start_neighbours = 1};
  options.on_warning = [](const std::string&) {};
  options.tune.max_evaluations = 2;  // the default config, then the first starting point
  options.tune.retime_top = 1;
  options.tune.strategy = "random";
  Runtime runtime(options);
  runtime.add_family(scale_family());
  EXPECT_EQ(runtime.get("test_scale", scale_problem(1100)).origin(), KernelOrigin::tuned);

  auto store = Store::open(dir / "results.db", OpenMode::read_only);
  bool measured_neighbour_winner = false;
  for (const TuningKey& key : store.keys({.family = "test_scale"})) {
    if (key.problem != "n=1100") continue;
    for (const StoredResult& r : store.results(key)) {
      measured_neighbour_winner |= r.config_hash == neighbour_winner.hash_hex();
    }
  }
  EXPECT_TRUE(measured_neighbour_winner);
}

TEST(WarmStart, ComparisonReportsWhenEachRunReachedACommonLevel) {
  TempDir dir;
  const Family family = scale_family();
  auto store = Store::open(dir / "results.db");
  store.record(scale_result(family, 60000, scale_config(1024, 8), 0.01));
  const Problem problem = scale_problem(50000);
  CpuOptions cpu;
  cpu.cache_dir = CUTUNE_RUNTIME_TEST_CACHE;
  FamilyEvaluator evaluator{std::make_unique<CpuEvaluator>(scale_spec(), problem, cpu),
                            Device::host_cpu()};
  const TuningKey key =
      family.key(problem, evaluator.evaluator->device_name(), evaluator.evaluator->toolchain());
  TuneOptions options;
  options.max_evaluations = 4;
  options.retime_top = 1;
  options.strategy = "random";
  const auto comparison = compare_warm_start(family, problem, evaluator, store, options, 2);
  ASSERT_EQ(comparison.neighbours.size(), 1u);
  ASSERT_GE(comparison.warm.evaluated.size(), 2u);
  EXPECT_EQ(comparison.warm.evaluated[1].config, scale_config(1024, 8));  // right after the default
  EXPECT_GT(comparison.target_ms, 0);
  EXPECT_GE(comparison.cold_evaluations, 1u);
  EXPECT_LE(comparison.cold_evaluations, comparison.cold.evaluated.size());
  EXPECT_GE(comparison.warm_evaluations, 1u);
  EXPECT_LE(comparison.warm_evaluations, comparison.warm.evaluated.size());
  // Neither run touched the store's results for this shape.
  EXPECT_EQ(store.measurement_count(key), 0);
  // A shape with no tuned neighbour cannot be compared.
  auto empty = Store::open(dir / "empty.db");
  EXPECT_THROW((void)compare_warm_start(family, problem, evaluator, empty, options, 2),
               std::invalid_argument);
}

}  // namespace
}  // namespace cutune::testing
