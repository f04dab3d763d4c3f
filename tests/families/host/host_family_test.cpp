// Host families (cutune/host.hpp) driven from C++: the measure function here is the host, as the
// Python package's adapters are in a real tune (python/tests cover those with Triton and Helion).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "cutune/host.hpp"
#include "cutune/tune.hpp"
#include "store/store_testing.hpp"

namespace cutune {
namespace {

using testing::TempDir;

constexpr const char* kSpec = R"({
  "name": "host_toy", "backend": "host", "source": "host_family_test.cpp", "entry": "toy",
  "problem": {"n": 4096},
  "knobs": [
    {"name": "BLOCK", "kind": "power_of_two", "min": 16, "max": 1024, "default": 64},
    {"name": "WARPS", "kind": "power_of_two", "min": 1, "max": 16, "default": 4},
    {"name": "STAGES", "kind": "integer", "min": 1, "max": 4, "default": 2}
  ],
  "constraints": [{"name": "block_fits", "expr": "BLOCK <= n", "repair": {"knob": "BLOCK", "direction": "down"}}],
  "seeds": [{"name": "wide", "priority": 1, "when": "n >= 1024", "config": {"BLOCK": 256, "WARPS": 8}}]
})";

KernelSpec toy_spec() {
  return parse_spec(kSpec, std::filesystem::path(CUTUNE_TEST_DIR) / "x.json");
}

// A kernel whose time has one minimum (BLOCK 256, WARPS 8, STAGES 3), that the framework runs
// with at most BLOCK / 32 warps (its normalize clamps WARPS), and that fails to compile at
// STAGES 4 (a failure is a value).
struct ToyHost {
  std::multiset<std::string> measured;
  HostMeasurer measurer() {
    HostMeasurer m;
    m.device_name = "toy device";
    m.toolchain = "toy 1.0";
    m.device = Device::host_cpu();
    m.measure = [this](std::span<const Config> batch) {
      std::vector<Measurement> out;
      for (const Config& c : batch) {
        measured.insert(c.to_string());
        Measurement r;
        if (c.get_int("STAGES") == 4) {
          r.outcome = Outcome::compile_error;
          r.detail = "stages: out of shared memory";
        } else {
          const double b = std::log2(static_cast<double>(c.get_int("BLOCK")));
          const double w = std::log2(static_cast<double>(c.get_int("WARPS")));
          const double s = static_cast<double>(c.get_int("STAGES"));
          r.time_ms = 1.0 + 0.1 * ((b - 8) * (b - 8) + (w - 3) * (w - 3) + (s - 3) * (s - 3));
          r.repetitions = 1;
        }
        out.push_back(r);
      }
      return out;
    };
    return m;
  }
};

std::optional<Config> clamp_warps(const Space& space, const Config& c) {
  PartialConfig p = c.to_partial();
  const std::int64_t most = std::max<std::int64_t>(1, c.get_int("BLOCK") / 32);
  if (p.at("WARPS").as_int() > most) p["WARPS"] = most;
  return space.complete(p);
}

TEST(HostFamily, TunesThroughTheHostWithItsNormalizeAsTheLastRepair) {
  TempDir dir;
  KernelSpec spec = toy_spec();
  ToyHost host;
  HostMeasurer measurer = host.measurer();
  const Space& space = spec.tuning->space;
  measurer.normalize = [&space](const Config& c) { return clamp_warps(space, c); };
  const Family f = host_family(spec, measurer);
  EXPECT_EQ(spec.tuning->space.constraints().back().name, "framework_normalize");
  const Problem problem = f.resolved(Problem::parse("n=4096"));
  FamilyEvaluator made = f.make_evaluator(problem, {});
  auto store = Store::open(dir / "results.db");
  TuneOptions options;
  options.max_evaluations = 40;
  options.batch_size = 8;
  const TuneReport report = tune(f, problem, made, &store, options);
  ASSERT_TRUE(report.best.has_value());
  // The search handed the host each config once (the tournament's rounds time finalists again),
  // and every one is a config its framework runs as given.
  std::set<std::string> searched;
  for (const Evaluated& e : report.evaluated) {
    EXPECT_TRUE(searched.insert(e.config.to_string()).second) << e.config.to_string();
  }
  EXPECT_EQ(std::set<std::string>(host.measured.begin(), host.measured.end()), searched);
  for (const Evaluated& e : report.evaluated) {
    EXPECT_LE(e.config.get_int("WARPS"), std::max<std::int64_t>(1, e.config.get_int("BLOCK") / 32))
        << e.config.to_string();
  }
  EXPECT_GT(report.outcomes.at(Outcome::compile_error), 0u);
  // The seed is the pinned default; the search finds the minimum's neighbourhood.
  EXPECT_EQ(report.baseline->config.get_int("BLOCK"), 256);
  EXPECT_LT(report.best->measurement.time_ms, 1.25);
  const TuningKey key = f.key(problem, "toy device", "toy 1.0");
  EXPECT_TRUE(store.decision(key).has_value());
}

TEST(HostFamily, RefusesAMeasurerWithoutMeasureAndOtherBackends) {
  KernelSpec spec = toy_spec();
  EXPECT_THROW(host_family(spec, HostMeasurer{}), std::invalid_argument);
  std::string cpu = kSpec;
  cpu.replace(cpu.find("\"host\""), 6, "\"cpu\"");
  KernelSpec other = parse_spec(cpu, std::filesystem::path(CUTUNE_TEST_DIR) / "x.json");
  ToyHost host;
  EXPECT_THROW(host_family(other, host.measurer()), std::invalid_argument);
}

TEST(HostFamily, TheToolSaysWhoTunesAHostSpec) {
  KernelSpec spec = toy_spec();
  try {
    spec_family(spec);
    FAIL() << "a host spec has no family of its own";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("cutune.helion"), std::string::npos);
  }
}

}  // namespace
}  // namespace cutune
