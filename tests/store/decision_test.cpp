// A tune's decision is what the store deploys (issue 10): the key's latest decision names the
// measurement it was decided on, and best_per_key(), deployed() and the exports hand out that
// config, not the fastest latest time over mixed measurements.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "store_testing.hpp"

namespace cutune {
namespace {

using testing::gemm_key;
using testing::TempDir;
using testing::timed;

Decision decide(const TuningKey& key, int block_m, std::int64_t row, double timestamp) {
  Decision d;
  d.key = key;
  d.tune_id = "tune-1";
  d.winner_hash = fmt::format("cfg-{}", block_m);
  d.winner_json = fmt::format(R"({{"block_m": {}}})", block_m);
  d.winner_measurement = row;
  d.default_hash = "cfg-256";
  d.speedup = 1.2;
  d.speedup_low = 1.15;
  d.speedup_high = 1.25;
  d.rounds = 15;
  d.finalists_json = R"([{"config_hash": "cfg-256", "role": "default"}])";
  d.rounds_json = R"({"sm_clock_mhz": [1980, null]})";
  d.timestamp = timestamp;
  return d;
}

// Today's rule took each config's latest time: B, re-timed in the tournament slower than A's
// search time, lost to A, a config the tune never chose.
TEST(Decision, TheDecidedWinnerIsDeployedEvenWhenAnotherConfigHasAFasterLatestTime) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  store.record(timed(gemm_key(), 256, 1.5));  // the default
  store.record(timed(gemm_key(), 64, 1.0));   // A: fast in the search, lost the tournament
  store.record(timed(gemm_key(), 128, 1.1));  // B
  const std::int64_t row = store.record(timed(gemm_key(), 128, 1.3));  // B's tournament rounds
  store.record_decision(decide(gemm_key(), 128, row, 1.8e9));

  ASSERT_TRUE(store.deployed(gemm_key()).has_value());
  EXPECT_EQ(store.deployed(gemm_key())->config_hash, "cfg-128");
  EXPECT_DOUBLE_EQ(store.deployed(gemm_key())->measurement.time_ms, 1.3);
  const auto deployed = store.best_per_key();
  ASSERT_EQ(deployed.size(), 1u);
  EXPECT_EQ(deployed[0].config_hash, "cfg-128");
  const auto exported = nlohmann::json::parse(export_json(deployed));
  EXPECT_EQ(exported.at("results").at(0).at("config_hash"), "cfg-128");
  // best() keeps its own rule: the fastest latest time.
  EXPECT_EQ(store.best(gemm_key(), 1).at(0).config_hash, "cfg-64");

  const auto decision = store.decision(gemm_key());
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->winner_measurement, row);
  EXPECT_EQ(decision->default_hash, "cfg-256");
  EXPECT_DOUBLE_EQ(decision->speedup_low, 1.15);
  EXPECT_EQ(decision->rounds, 15);
  EXPECT_EQ(nlohmann::json::parse(decision->rounds_json).at("sm_clock_mhz").at(1), nullptr);
}

TEST(Decision, TheLatestDecisionOfAKeyIsDeployedAndAnUndecidedKeyKeepsTheFastest) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const std::int64_t first = store.record(timed(gemm_key(), 64, 1.0));
  store.record_decision(decide(gemm_key(), 64, first, 1.8e9));
  const std::int64_t second = store.record(timed(gemm_key(), 128, 1.2, "tune-2"));
  store.record_decision(decide(gemm_key(), 128, second, 1.8e9 + 10));
  const TuningKey other = gemm_key("m=8,n=8,k=8,dtype=bf16");
  store.record(timed(other, 32, 0.2));
  store.record(timed(other, 16, 0.1));

  EXPECT_EQ(store.deployed(gemm_key())->config_hash, "cfg-128");
  EXPECT_EQ(store.deployed(other)->config_hash, "cfg-16");
  EXPECT_FALSE(store.decision(other).has_value());
  EXPECT_FALSE(store.deployed(gemm_key("m=1,n=1,k=1,dtype=bf16")).has_value());
  const auto deployed = store.best_per_key();
  ASSERT_EQ(deployed.size(), 2u);
  for (const StoredResult& r : deployed) {
    EXPECT_EQ(r.config_hash, r.key == other ? "cfg-16" : "cfg-128");
  }
}

TEST(Decision, AMeasurementOfAnotherConfigOrKeyIsRefused) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const std::int64_t row = store.record(timed(gemm_key(), 64, 1.0));
  EXPECT_THROW(store.record_decision(decide(gemm_key(), 128, row, 1.8e9)), StoreError);
  EXPECT_THROW(store.record_decision(decide(gemm_key("m=8,n=8,k=8,dtype=bf16"), 64, row, 1.8e9)),
               StoreError);
  Decision not_json = decide(gemm_key(), 64, row, 1.8e9);
  not_json.finalists_json = "{";
  EXPECT_THROW(store.record_decision(not_json), StoreError);
  EXPECT_FALSE(store.decision(gemm_key()).has_value());
}

}  // namespace
}  // namespace cutune
