// An inout buffer (a kernel that works in place) in a spec without a check: filled from the seed
// and restored before every run as an input is, compared as an output is, against what the
// default config computes from the same inputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cpu_testing.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

const std::filesystem::path data = CUTUNE_TEST_DATA_DIR;

TEST_F(CpuEvaluatorTest, InoutBufferIsComparedWithTheDefaultConfigsResult) {
  const KernelSpec spec = load_spec(data / "inplace_scale.json");
  ASSERT_TRUE(spec.check.has_value());
  EXPECT_EQ(checked_against(spec), "the default config");
  CpuEvaluator evaluator(spec, {}, options());
  std::vector<Config> configs;
  for (int unroll : {1, 2, 3, 4})
    configs.push_back(spec.tuning->space.complete({{"UNROLL", unroll}}));
  const std::vector<Measurement> results = evaluator.evaluate(configs);
  ASSERT_EQ(results.size(), 4u);
  for (std::size_t i : {0u, 1u, 3u}) {
    // Every timed run is checked too: an in-place kernel passes only if each run starts from the
    // seeded values again, not from the previous run's.
    EXPECT_EQ(results[i].outcome, Outcome::ok) << configs[i].to_json() << results[i].detail;
    EXPECT_GE(results[i].repetitions, 3);
    EXPECT_LT(results[i].max_rel_error, 1e-12);
  }
  EXPECT_EQ(results[2].outcome, Outcome::wrong_result);
  EXPECT_NE(results[2].detail.find("inout 'x' differs from the default config"), std::string::npos)
      << results[2].detail;
  EXPECT_GT(results[2].max_rel_error, 1e-3);
}

}  // namespace
}  // namespace cutune
