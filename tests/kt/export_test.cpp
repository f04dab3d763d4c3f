// The Kernel Tuner writers on hand-made store rows: what each format needs of a stored config.
#include <gtest/gtest.h>

#include "cutune/kernel_tuner.hpp"
#include "kt_testing.hpp"

namespace cutune::testing {
namespace {

// A spec's knob order (export --spec) naming a knob that a stored config lacks is the same clear
// error in both formats: the format, the config and the knob, not a JSON library's message.
TEST(KernelTunerExport, AConfigWithoutAKnobOfTheOrderIsAnErrorNamingConfigAndKnob) {
  const std::vector<StoredResult> latest = {timed(gemm_key(), 64, 0.5)};  // block_m, swizzle, ...
  KtExportInfo info;
  info.knob_order = {"block_m", "tile_k"};
  const auto expect_error = [&](const auto& write, const std::string& format) {
    try {
      write(latest, info);
      ADD_FAILURE() << format << " written without knob tile_k";
    } catch (const KernelTunerError& error) {
      EXPECT_EQ(std::string(error.what()), format + ": config cfg-64 has no knob tile_k");
    }
  };
  expect_error(kt_cache, "a Kernel Tuner cache");
  expect_error(kt_t4, "a T4 results file");
}

}  // namespace
}  // namespace cutune::testing
