// The fault-injection tune of issue 3, through the real driver, strategy, store and backend: a
// space holding configs that fail to compile, crash, hang and compute wrong results. The tune
// finishes, each failure is recorded with its reason, and the fastest correct config wins.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "cutune/cpu.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"

namespace cutune {
namespace {

// The tune on `devices` CPU workers (CpuOptions::devices), checked the same whatever their number;
// returns the report for what depends on it.
TuneReport tune_faults(unsigned devices) {
  auto dir = std::filesystem::temp_directory_path() /
             ("cutune-tune-" + std::to_string(::getpid()) + "-" + std::to_string(devices));
  std::filesystem::remove_all(dir);
  auto spec = load_spec(std::filesystem::path(CUTUNE_EXAMPLES_DIR) / "cpu/faults/faults.json");
  auto problem = spec.resolve({});
  CpuOptions options;
  options.cache_dir = dir / "objects";
  options.devices = devices;
  CpuEvaluator evaluator(spec, problem, options);
  auto store = Store::open(dir / "results.db");
  TuningKey key{spec.name, spec.version, problem.canonical(), evaluator.device_name(),
                evaluator.toolchain()};
  TuneOptions tune_options;
  tune_options.strategy = "exhaustive";
  tune_options.max_evaluations = 20;
  tune_options.retime_top = 2;

  auto report =
      tune(*spec.tuning, problem, Device::host_cpu(), evaluator, &store, key, tune_options);

  EXPECT_EQ(report.evaluated.size(), 8u);  // every mode once
  EXPECT_EQ(report.outcomes[Outcome::ok], 2u);
  EXPECT_EQ(report.outcomes[Outcome::compile_error], 1u);
  EXPECT_EQ(report.outcomes[Outcome::compile_timeout], 1u);
  EXPECT_EQ(report.outcomes[Outcome::crash], 2u);  // segfault and abort
  EXPECT_EQ(report.outcomes[Outcome::hang], 1u);
  EXPECT_EQ(report.outcomes[Outcome::wrong_result], 1u);
  for (const auto& evaluated : report.evaluated) {
    const auto& mode = evaluated.config.get_string("MODE");
    const auto& m = evaluated.measurement;
    if (mode == "segfault") {
      EXPECT_NE(m.detail.find("SIGSEGV"), std::string::npos) << m.detail;
    } else if (mode == "abort") {
      EXPECT_NE(m.detail.find("SIGABRT"), std::string::npos) << m.detail;
    } else if (mode == "hang") {
      EXPECT_EQ(m.outcome, Outcome::hang);
    } else if (mode == "wrong") {
      EXPECT_EQ(m.outcome, Outcome::wrong_result);
    }
  }
  EXPECT_EQ(report.best ? report.best->config.get_string("MODE") : "none", "fast");
  EXPECT_GE(store.measurement_count(key), 8);
  auto best = store.best(key, 1);
  EXPECT_EQ(best.size(), 1u);
  EXPECT_NE(best.empty() ? std::string::npos : best[0].config_json.find("\"fast\""),
            std::string::npos);
  std::filesystem::remove_all(dir);
  return report;
}

TEST(CpuTune, FaultySpaceTunesToTheFastestCorrectConfig) {
  for (const Evaluated& e : tune_faults(1).evaluated) EXPECT_EQ(e.measurement.device, 0);
}

// Several devices: each batch's compiled candidates spread over the three workers, each result
// tagged with the one that measured it, a worker's crash restarting only that worker, and the same
// decision as one device reaches.
TEST(CpuTune, ThreeDevicesShareTheBatchesAndReachTheSameDecision) {
  std::set<int> devices;
  for (const Evaluated& e : tune_faults(3).evaluated) {
    const bool measured = e.measurement.outcome != Outcome::compile_error &&
                          e.measurement.outcome != Outcome::compile_timeout;
    if (measured) devices.insert(e.measurement.device);
  }
  EXPECT_EQ(devices, (std::set<int>{0, 1, 2}));
}

}  // namespace
}  // namespace cutune
