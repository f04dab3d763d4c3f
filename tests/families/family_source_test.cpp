// The one rule "name or spec path and problem text -> family and problem" (family_source,
// problem_for) that `cutune tune`, `cutune space` and the Python package share, and the device
// every family must describe.
#include <gtest/gtest.h>

#include <string>

#include "cutune/family.hpp"
#include "cutune/spec.hpp"
#include "store/store_testing.hpp"

namespace cutune {
namespace {

TEST(FamilySource, ASpecPathIsASpecAndItsProblemIsTakenAsGiven) {
  const FamilySource source = family_source(CUTUNE_SCALE_SPEC);
  ASSERT_NE(source.spec, nullptr);
  EXPECT_EQ(source.family.name, "test_scale");
  EXPECT_EQ(problem_for(source, "").canonical(), "n=4096");  // the spec's example
  EXPECT_EQ(problem_for(source, " n = 128 ").canonical(), "n=128");
  EXPECT_THROW(problem_for(source, "n="), std::invalid_argument);
}

TEST(FamilySource, ABuiltInFamilysExampleArgumentsAreOverriddenOneByOne) {
  if (find_family("gemm") == nullptr) GTEST_SKIP() << "no built-in GEMM in this build";
  const FamilySource source = family_source("gemm");
  EXPECT_EQ(source.spec, nullptr);
  const Problem example = problem_for(source, "");
  const Problem small = problem_for(source, "m=128");
  EXPECT_EQ(small.get_int("m"), 128);
  EXPECT_EQ(small.at("n"), example.at("n"));
  EXPECT_EQ(small.at("k"), example.at("k"));
  EXPECT_EQ(small.at("dtype").as_string(), "bf16");
}

TEST(FamilySource, ANameThatIsNeitherIsRefusedNamingTheFamilies) {
  try {
    family_source("no_such_family");
    FAIL() << "an unknown name was accepted";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("neither a kernel spec file nor a built-in family"), std::string::npos);
  }
}

// `cutune space` and `cutune tune` go through the same rule: the same name fails the same way.
TEST(FamilySource, SpaceAndTuneRefuseAnUnknownNameAlike) {
  const auto space = testing::run_command(std::string(CUTUNE_TOOL) + " space no_such_family");
  const auto tune =
      testing::run_command(std::string(CUTUNE_TOOL) + " tune no_such_family --no-store");
  EXPECT_NE(space.status, 0);
  EXPECT_NE(tune.status, 0);
  const std::string message =
      "'no_such_family' is neither a kernel spec file nor a built-in family";
  EXPECT_NE(space.output.find(message), std::string::npos) << space.output;
  EXPECT_NE(tune.output.find(message), std::string::npos) << tune.output;
}

TEST(FamilyDevice, EveryFamilyDescribesItsDevice) {
  for (const Family& f : builtin_families()) EXPECT_FALSE(f.device.name.empty()) << f.name;
  EXPECT_EQ(family_source(CUTUNE_SCALE_SPEC).family.device.name, Device::host_cpu().name);
  const std::string cuda_spec = std::string(CUTUNE_EXAMPLES_DIR) + "/cuda/reduction.json";
  const KernelSpec spec = load_spec(cuda_spec);
  try {
    // Before any worker reports the GPU: the H200 this project tunes on, by its description.
    EXPECT_EQ(spec_family(spec).device.canonical(), Device::h200().canonical());
  } catch (const std::invalid_argument&) {
    GTEST_SKIP() << "no CUDA backend in this build";
  }
}

}  // namespace
}  // namespace cutune
