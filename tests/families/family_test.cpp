// The table of families and the record itself: the worked example of docs/families.md (a
// built-in family made from a spec), run as written through a real tune of the CPU backend, the
// key it stores under, and the table's choice of a spec's backend.
#include "cutune/family.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/tune.hpp"
#include "spec/spec_family.hpp"
#include "store/store_testing.hpp"

namespace cutune {
namespace {

using testing::TempDir;

// docs/families.md's axpy(), on the runtime tests' small kernel.
Family worked_example() {
  static const KernelSpec spec = load_spec(CUTUNE_SCALE_SPEC);
  Family f = families::spec_cpu(spec);
  f.summary = "y = 3 x + 1 on the host";
  f.example_problem = Problem::parse("n=2048");
  f.flop_count = [](const Problem& p) { return 2.0 * static_cast<double>(p.get_int("n")); };
  return f;
}

TEST(Family, TheWorkedExampleTunesAndStoresUnderItsKey) {
  TempDir dir;
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);  // compiles are real, and ours
  const Family f = worked_example();
  EXPECT_FALSE(f.load);  // a tuning family; the runtime's adds the loader
  const Problem problem = f.resolved(f.example_problem);
  FamilyEvaluator made = f.make_evaluator(problem, {});
  const TuningKey key = f.key(problem, made.evaluator->device_name(), made.evaluator->toolchain());
  EXPECT_EQ(key.family, "test_scale");
  EXPECT_EQ(key.problem, "n=2048");
  EXPECT_EQ(key.family_version, f.version);
  EXPECT_DOUBLE_EQ(f.flop_count(problem), 4096.0);

  auto store = Store::open(dir / "results.db");
  TuneOptions options;
  options.max_evaluations = 2;
  options.retime_top = 1;
  options.strategy = "random";
  const TuneReport report = tune(f, problem, made, &store, options);
  ASSERT_TRUE(report.best.has_value());
  const auto keys = store.keys({.family = "test_scale"});
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys.front().canonical(), key.canonical());
  EXPECT_TRUE(store.deployed(key).has_value());
}

// `cutune tune --devices 0,2` on a CPU spec: as many worker processes as devices named, a
// batch's candidates spread over them and each result tagged with the worker that measured it.
TEST(Family, CpuSpecEvaluatorMeasuresOnAWorkerPerDevice) {
  TempDir dir;
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const Family f = worked_example();
  const Problem problem = f.resolved(f.example_problem);
  FamilyEvaluator made = f.make_evaluator(problem, {0, 2});
  const Config first = f.tuning->space.default_config();
  const std::vector<Config> batch{first, f.tuning->space.neighbours(first).front()};
  std::set<int> devices;
  for (const Measurement& m : made.evaluator->evaluate(batch)) {
    EXPECT_TRUE(m.ok()) << m.detail;
    devices.insert(m.device);
  }
  EXPECT_EQ(devices, (std::set<int>{0, 1}));
}

TEST(Family, SpecFamilyIsChosenByTheSpecsBackend) {
  KernelSpec spec = load_spec(CUTUNE_SCALE_SPEC);
  const Family f = spec_family(spec);
  EXPECT_EQ(f.name, spec.name);
  EXPECT_EQ(f.version, spec.version);
  EXPECT_EQ(f.tuning, spec.tuning.get());
  EXPECT_TRUE(f.make_evaluator);

  spec.backend = "metal";
  try {
    spec_family(spec);
    FAIL() << "a backend this build lacks was accepted";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'metal'"), std::string::npos) << what;
    EXPECT_NE(what.find("cpu"), std::string::npos) << what;  // names what the build has
  }
}

TEST(Family, TheTablesNamesAreItsFamiliesInOrder) {
  std::vector<std::string> built;
  for (const Family& f : builtin_families()) built.push_back(f.name);
  EXPECT_EQ(family_names(), built);
  for (const std::string& name : family_names()) {
    const Family* f = find_family(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_NE(f->tuning, nullptr) << name;
    EXPECT_FALSE(f->version.empty()) << name;
    EXPECT_NO_THROW(f->resolved(f->example_problem)) << name;
  }
  EXPECT_EQ(find_family("no such family"), nullptr);
}

}  // namespace
}  // namespace cutune
