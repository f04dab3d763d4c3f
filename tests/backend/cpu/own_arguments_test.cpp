// A C kernel tuned as its author wrote it (spec `arguments`, issue 32): pointers of f32, f64 and
// u8 elements with i32, f32, i64 and f64 scalars in the kernel's own order, compiled through the
// generated call shim, checked against a reference function in the same file, end to end through
// the driver and the store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>

#include "cutune/cpu.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"

namespace cutune {
namespace {

const std::filesystem::path data = std::filesystem::path(CUTUNE_TEST_DATA_DIR);

TEST(CpuOwnArguments, MixedScalarKernelTunesAgainstItsReferenceInTheSameFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cutune-own-arguments-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const KernelSpec spec = load_spec(data / "masked_axpby.json");
  ASSERT_EQ(spec.arguments.size(), 8u);
  const Problem problem = spec.resolve({});
  CpuOptions options;
  options.cache_dir = dir / "objects";
  FamilyEvaluator target{std::make_unique<CpuEvaluator>(spec, problem, options),
                         Device::host_cpu()};
  auto store = Store::open(dir / "results.db");
  Family family;
  family.name = spec.name;
  family.version = spec.version;
  family.tuning = spec.tuning.get();
  TuneOptions tune_options;
  tune_options.strategy = "exhaustive";
  tune_options.max_evaluations = 8;
  tune_options.retime_top = 0;

  const TuneReport report = tune(family, problem, target, &store, tune_options);

  ASSERT_EQ(report.evaluated.size(), 8u);
  for (const Evaluated& e : report.evaluated) {
    // Every scalar arrived as the kernel declared it (else the candidate writes nothing and every
    // config is wrong), and the check compares with the reference (BUG=1 is caught).
    const bool bug = e.config.get_int("BUG") == 1;
    EXPECT_EQ(e.measurement.outcome, bug ? Outcome::wrong_result : Outcome::ok)
        << e.config.to_json() << ": " << e.measurement.detail;
  }
  ASSERT_TRUE(report.best.has_value());
  EXPECT_EQ(report.best->config.get_int("BUG"), 0);
  std::filesystem::remove_all(dir);
}

// The same kernel with two scalars listed in another order than the kernel's: the arguments go
// in the order the spec lists them, so the candidate's own check of its scalars fails.
TEST(CpuOwnArguments, ScalarOfAnotherTypeIsNotTheSameCall) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cutune-own-arguments-type-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(data / "masked_axpby.c", dir / "masked_axpby.c");
  std::string text;
  {
    std::ifstream in(data / "masked_axpby.json");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string alpha = R"({"name": "alpha", "type": "f32", "value": 0.5})";
  const std::string beta = R"({"name": "beta", "type": "f64", "value": "-2"})";
  text.replace(text.find(alpha), alpha.size(), beta);
  text.replace(text.rfind(beta), beta.size(), alpha);
  const KernelSpec spec = parse_spec(text, dir / "masked_axpby.json");
  CpuOptions options;
  options.cache_dir = dir / "objects";
  CpuEvaluator evaluator(spec, spec.resolve({}), options);
  const Config config = spec.tuning->space.complete({{"UNROLL", Value(4)}, {"BUG", Value(0)}});
  const auto measured = evaluator.evaluate(std::span<const Config>(&config, 1));
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_EQ(measured[0].outcome, Outcome::wrong_result) << measured[0].detail;
  std::filesystem::remove_all(dir);
}

// A misspelt entry fails to compile through the shim for every config alike: the evaluator says
// so before any budget is spent.
TEST(CpuOwnArguments, AMisspeltEntryIsOneErrorBeforeTheTune) {
  std::string text;
  {
    std::ifstream in(data / "masked_axpby.json");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string entry = R"("entry": "masked_axpby")";
  text.replace(text.find(entry), entry.size(), R"("entry": "masked_axpbyy")");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cutune-own-arguments-entry-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(data / "masked_axpby.c", dir / "masked_axpby.c");
  const KernelSpec spec = parse_spec(text, dir / "masked_axpby.json");
  CpuOptions options;
  options.cache_dir = dir / "objects";
  try {
    CpuEvaluator evaluator(spec, spec.resolve({}), options);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("entry 'masked_axpbyy'"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cutune
