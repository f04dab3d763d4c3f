// The fault-injection tune of issues 3 and 17, through the real driver, strategy, store and
// backend: a space of 23 modes whose configs fail to compile, crash by signal or exit, hang (in
// the kernel or while loading), write past or before their buffers, are wrong only on some calls,
// or write garbage into the worker's descriptors. The tune finishes, each failure is recorded
// with its reason, and the fastest correct config wins.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "cpu_testing.hpp"
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
  FamilyEvaluator target{std::make_unique<CpuEvaluator>(spec, problem, options),
                         Device::host_cpu()};
  const Evaluator& evaluator = *target.evaluator;
  auto store = Store::open(dir / "results.db");
  Family family;  // the spec's, as spec_family (src/families) makes it
  family.name = spec.name;
  family.version = spec.version;
  family.tuning = spec.tuning.get();
  const TuningKey key = family.key(problem, evaluator.device_name(), evaluator.toolchain());
  TuneOptions tune_options;
  tune_options.strategy = "exhaustive";
  tune_options.max_evaluations = 40;
  tune_options.retime_top = 2;

  auto report = tune(family, problem, target, &store, tune_options);

  // Every mode, its outcome, and words its detail must hold.
  const std::map<std::string, std::pair<Outcome, std::string>> expected{
      {"fast", {Outcome::ok, ""}},
      {"slow", {Outcome::ok, ""}},
      {"compile_error", {Outcome::compile_error, "this mode does not compile"}},
      {"compile_hang", {Outcome::compile_timeout, "killed"}},
      {"segfault", {Outcome::crash, "SIGSEGV"}},
      {"abort", {Outcome::crash, "SIGABRT"}},
      {"hang", {Outcome::hang, "no reply"}},
      {"wrong", {Outcome::wrong_result, "differs from the reference"}},
      {"flaky", {Outcome::wrong_result, "after a timed run"}},
      {"write_past_end", {Outcome::wrong_result, "past the end of buffer 'out'"}},
      {"write_before_start", {Outcome::wrong_result, "before the start of buffer 'out'"}},
      {"write_past_input", {Outcome::wrong_result, "past the end of buffer 'in'"}},
      {"nan", {Outcome::wrong_result, "NaN"}},
      {"exit_zero", {Outcome::crash, "exit code 0"}},
      {"exit_code", {Outcome::crash, "exit code"}},  // 3, or LeakSanitizer's 23
      {"sigfpe", {Outcome::crash, "SIGFPE"}},
      {"sigbus", {Outcome::crash, "SIGBUS"}},
      {"trap", {Outcome::crash, "SIGILL"}},
      {"stack_overflow", {Outcome::crash, "SIGSEGV"}},
      {"fd_garbage", {Outcome::crash, "broke the protocol"}},
      {"static_init_abort", {Outcome::crash, "SIGABRT"}},
      {"static_init_hang", {Outcome::hang, "no reply"}},
      {"sleep", {Outcome::hang, "no reply"}},
  };
  EXPECT_EQ(report.evaluated.size(), expected.size());  // every mode once
  for (const auto& evaluated : report.evaluated) {
    const auto& mode = evaluated.config.get_string("MODE");
    const auto& m = evaluated.measurement;
    const auto& [outcome, words] = expected.at(mode);
    // A sleep wants no CPU: however busy the machine, its timeout is its own.
    if (mode != "sleep" && (outcome == Outcome::hang || outcome == Outcome::compile_timeout)) {
      EXPECT_TRUE(verdict_or_starved(m, outcome)) << mode << ": " << m.detail;
    } else {
      EXPECT_EQ(m.outcome, outcome) << mode << ": " << m.detail;
    }
    EXPECT_NE(m.detail.find(words), std::string::npos) << mode << ": " << m.detail;
  }
  EXPECT_EQ(report.best ? report.best->config.get_string("MODE") : "none", "fast");
  EXPECT_GE(store.measurement_count(key), static_cast<std::int64_t>(expected.size()));
  // The store keeps which worker device measured each result (none for a config that never
  // reached a worker): the same devices the tune's results name.
  std::set<int> tagged, stored;
  for (const auto& e : report.evaluated) {
    const bool compiled = e.measurement.outcome != Outcome::compile_error &&
                          e.measurement.outcome != Outcome::compile_timeout;
    if (compiled) tagged.insert(e.measurement.device);
  }
  for (const StoredResult& row : store.results(key)) {
    const Measurement& m = row.measurement;
    if (m.device_name.empty()) {
      EXPECT_EQ(m.device, -1) << row.config_json;
      continue;
    }
    EXPECT_EQ(m.device_name, "cpu worker") << row.config_json;
    EXPECT_TRUE(m.device >= 0 && m.device < static_cast<int>(devices)) << m.device;
    stored.insert(m.device);
  }
  EXPECT_EQ(stored, tagged);
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
