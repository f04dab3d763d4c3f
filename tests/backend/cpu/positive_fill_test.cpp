// fill "positive": an input of the seeded values' magnitudes, for a kernel defined only on
// positive inputs (a root, a logarithm, a divisor, a scale).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cpu_testing.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

const std::filesystem::path data = CUTUNE_TEST_DATA_DIR;

std::vector<Measurement> measure_every_unroll(const KernelSpec& spec, const CpuOptions& options) {
  std::vector<Config> configs;
  for (int unroll : {1, 2, 4}) configs.push_back(spec.tuning->space.complete({{"UNROLL", unroll}}));
  CpuEvaluator evaluator(spec, {}, options);
  return evaluator.evaluate(configs);
}

TEST_F(CpuEvaluatorTest, APositiveInputIsFilledWithMagnitudes) {
  const KernelSpec spec = load_spec(data / "roots.json");
  EXPECT_EQ(spec.buffers[0].fill, BufferFill::positive);
  for (const Measurement& m : measure_every_unroll(spec, options())) {
    EXPECT_EQ(m.outcome, Outcome::ok) << m.detail;
    EXPECT_EQ(m.max_rel_error, 0);
  }
}

TEST_F(CpuEvaluatorTest, WithValuesOfEitherSignTheRootsAreNotANumber) {
  KernelSpec spec = load_spec(data / "roots.json");
  spec.buffers[0].fill = BufferFill::random;
  try {
    measure_every_unroll(spec, options());
    ADD_FAILURE() << "the default config's roots of negative values served as the reference";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("output 'out' holds NaN or infinity"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cutune
