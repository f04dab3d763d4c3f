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

StoredResult matmul_row(const std::string& order, double time_ms, std::vector<double> times) {
  StoredResult r;
  r.key = {"cpu_matmul", "v1", "k=32,m=64,n=48", "cpu", "c++ 12"};
  r.config_hash = "cfg-" + order;
  r.config_json = R"({"BM": 32, "ORDER": )" + order + R"(, "MODE": "fast"})";
  r.measurement.time_ms = time_ms;
  r.measurement.times_ms = std::move(times);
  r.measurement.repetitions = static_cast<int>(r.measurement.times_ms.size());
  r.measurement.compile_s = 0.25;
  return r;
}

// Issue 32: what Kernel Tuner's simulation mode and cache schema 1.1.0 need of a cache (the real
// Kernel Tuner checks them in kt_replay_test.sh; these pin the encoding).
TEST(KernelTunerExport, CacheIsWhatKernelTunerReplays) {
  std::vector<StoredResult> latest = {matmul_row("[0, 2, 1]", 2.0, {2.5, 2.0, 1.5}),
                                      matmul_row("[1, 0, 2]", 3.0, {})};
  latest[1].measurement.outcome = Outcome::compile_error;
  KtExportInfo info;
  info.knob_order = {"BM", "ORDER", "MODE"};
  info.problem_order = {"m", "n", "k"};
  const nlohmann::ordered_json cache = kt_cache(latest, info);
  EXPECT_EQ(cache.at("schema_version"), "1.1.0");
  EXPECT_EQ(cache.at("problem_size"), nlohmann::ordered_json({64, 48, 32}));  // the spec's order
  EXPECT_EQ(cache.at("tune_params").at("ORDER"),
            nlohmann::ordered_json({"(0, 2, 1)", "(1, 0, 2)"}));  // hashable in Python
  const auto& ok = cache.at("cache").at("32,(0, 2, 1),fast");
  EXPECT_EQ(ok.at("ORDER"), "(0, 2, 1)");
  EXPECT_EQ(ok.at("times"), nlohmann::ordered_json({2.5, 2.0, 1.5}));  // in the order they ran
  EXPECT_EQ(ok.at("compile_time"), 250.0);
  const auto& failed = cache.at("cache").at("32,(1, 0, 2),fast");
  EXPECT_EQ(failed.at("time"), "CompilationFailedConfig");
  EXPECT_FALSE(failed.contains("times"));

  info.problem_order.clear();  // without a spec: the key's order, names sorted
  EXPECT_EQ(kt_cache(latest, info).at("problem_size"), nlohmann::ordered_json({32, 64, 48}));
  const nlohmann::ordered_json t4 = kt_t4(latest, info);
  EXPECT_EQ(t4.at("results").at(0).at("times").at("runtimes"),
            nlohmann::ordered_json({2.5, 2.0, 1.5}));
  EXPECT_EQ(t4.at("results").at(0).at("configuration").at("ORDER"), "(0, 2, 1)");
}

// A problem that is not integers alone stays text (the schema allows a string); one integer is
// an integer.
TEST(KernelTunerExport, ProblemSizeIsIntegersOrTheKeysText) {
  const std::vector<StoredResult> gemm = {timed(gemm_key("dtype=bf16,k=64,m=64,n=64"), 64, 0.5)};
  EXPECT_EQ(kt_cache(gemm, {}).at("problem_size"), "dtype=bf16,k=64,m=64,n=64");
  const std::vector<StoredResult> one = {timed(gemm_key("n=4096"), 64, 0.5)};
  EXPECT_EQ(kt_cache(one, {}).at("problem_size"), 4096);
  const std::vector<StoredResult> sizes = {timed(gemm_key("size_x=8,size_y=4"), 64, 0.5)};
  EXPECT_EQ(kt_cache(sizes, {}).at("problem_size"), nlohmann::ordered_json({8, 4}));
}

}  // namespace
}  // namespace cutune::testing
