// A partial_sums buffer (a reduction's per-block results, whose number and order follow the
// config): zeroed before every run and compared by its total, so that configs which split the sum
// differently all pass and one that loses part of it fails.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cpu_testing.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

const std::filesystem::path data = CUTUNE_TEST_DATA_DIR;

std::vector<Measurement> measure_every_chunking(const KernelSpec& spec, const CpuOptions& options,
                                                std::vector<Config>& configs) {
  for (int chunks : {1, 2, 5, 8})
    configs.push_back(spec.tuning->space.complete({{"CHUNKS", chunks}}));
  CpuEvaluator evaluator(spec, {}, options);
  return evaluator.evaluate(configs);
}

TEST_F(CpuEvaluatorTest, PartialSumsAreComparedByTheirTotal) {
  const KernelSpec spec = load_spec(data / "chunk_sums.json");
  EXPECT_EQ(checked_against(spec), "the default config");
  std::vector<Config> configs;
  const std::vector<Measurement> results = measure_every_chunking(spec, options(), configs);
  ASSERT_EQ(results.size(), 4u);
  for (std::size_t i : {0u, 1u, 3u}) {
    EXPECT_EQ(results[i].outcome, Outcome::ok) << configs[i].to_json() << results[i].detail;
    EXPECT_LT(results[i].max_rel_error, 1e-12);
  }
  EXPECT_EQ(results[2].outcome, Outcome::wrong_result);
  EXPECT_NE(results[2].detail.find("partial_sums 'partials' differs from the default config"),
            std::string::npos)
      << results[2].detail;
  EXPECT_GT(results[2].max_rel_error, 1e-5);
}

TEST_F(CpuEvaluatorTest, AsAnOutputTheDefaultsUnwrittenSlotsAreRefused) {
  // Why the role exists: as an output, the slots a chunking leaves unwritten keep their poison,
  // so even the default config cannot serve as the reference.
  KernelSpec spec = load_spec(data / "chunk_sums.json");
  spec.buffers[1].role = BufferRole::output;
  std::vector<Config> configs;
  try {
    measure_every_chunking(spec, options(), configs);
    ADD_FAILURE() << "the default config served as the reference";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("output 'partials' holds NaN or infinity"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cutune
