// The runtime's tunes start as `cutune tune` does (cutune/session.hpp): the family's results for
// another shape in the store are a transfer prior, whose fastest configs the tune measures in its
// first round; RuntimeOptions::transfer = false (the CLI's --no-transfer) turns that off.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "runtime_testing.hpp"

namespace cutune::testing {
namespace {

// Results of another shape (n=60000), as an earlier tune would have stored them: eight correct
// configs (a prior needs that many) and one far faster than the rest, which the store does not
// deploy (no decision) so that no warm start could bring it.
Config record_another_shape(const std::filesystem::path& db) {
  const Family family = scale_family();
  auto store = Store::open(db);
  double time_ms = 1.0;
  for (std::int64_t chunk : {4, 8, 16, 32, 64, 128, 512, 1024}) {
    store.record(scale_result(family, 60000, scale_config(chunk, 2), time_ms));
    time_ms += 0.5;
  }
  const Config fastest = scale_config(256, 4);
  store.record(scale_result(family, 60000, fastest, 0.01));
  return fastest;
}

// The config hashes a runtime's tune of n=2000 measured (tune_now, a budget of three).
std::set<std::string> tuned_configs(const std::filesystem::path& db, bool transfer) {
  RuntimeOptions options{
      .store = db, .store_mode = OpenMode::read_write, .policy = Policy::tune_now};
  options.warm_start_neighbours = 0;
  options.transfer = transfer;
  options.tune.max_evaluations = 3;
  options.tune.retime_top = 1;
  options.tune.strategy = "random";
  options.tune.seed = 1;
  options.on_warning = [](const std::string&) {};
  Runtime runtime(options);
  runtime.add_family(scale_family());
  EXPECT_EQ(runtime.get("test_scale", scale_problem(2000)).origin(), KernelOrigin::tuned);

  const Family family = scale_family();
  auto store = Store::open(db, OpenMode::read_only);
  std::set<std::string> hashes;
  for (const StoredResult& r :
       store.latest_results(family.key(scale_problem(2000), family.device_key, family.toolchain))) {
    hashes.insert(r.config_hash);
  }
  EXPECT_GE(hashes.size(), 2u);  // the default and more
  return hashes;
}

TEST(RuntimeTransfer, AnotherShapesResultsSeedTheTuneUnlessTurnedOff) {
  TempDir dir;
  const Config fastest = record_another_shape(dir / "with.db");
  record_another_shape(dir / "without.db");
  EXPECT_TRUE(tuned_configs(dir / "with.db", true).contains(fastest.hash_hex()));
  EXPECT_FALSE(tuned_configs(dir / "without.db", false).contains(fastest.hash_hex()));
}

}  // namespace
}  // namespace cutune::testing
