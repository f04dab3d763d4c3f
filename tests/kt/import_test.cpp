// Kernel Tuner descriptions imported as cutune specs: the spec loader accepts them, the knobs are
// the tunable parameters, and the constraints admit exactly the configs Kernel Tuner's
// restrictions admit (Python's verdict, by the Python reader, against the spec's muparser).
#include <gtest/gtest.h>

#include "cutune/kernel_tuner.hpp"
#include "kt/python_expression.hpp"
#include "kt_testing.hpp"

namespace cutune::testing {
namespace {

using json = nlohmann::json;

// For every config of the spec's full space: the spec's verdict must be Python's.
std::size_t expect_same_legal_configs(const KernelSpec& spec,
                                      const std::vector<std::string>& restrictions) {
  const Space& space = spec.tuning->space;
  const Problem problem = spec.resolve({});
  std::size_t legal = 0;
  for (const Config& config : space.enumerate(View::full, 100000)) {
    json names = config.to_json();
    for (const auto& [name, value] : problem.args()) names[name] = value.to_json();
    bool python = true;
    for (const auto& r : restrictions) {
      python = python && kt::evaluate_python(kt::parse_python(r), names) != 0;
    }
    const Normalized normalized = space.normalize(config, problem, Device{});
    const bool spec_says = normalized.config.has_value() && *normalized.config == config;
    EXPECT_EQ(spec_says, python) << config.to_string();
    legal += python ? 1 : 0;
  }
  return legal;
}

TEST(ImportKt, T1FileBecomesALoadableSpecWithTheSameLegalConfigs) {
  std::ifstream in(CUTUNE_KT_TEST_DATA "/convolution_t1.json");
  const json t1 = json::parse(in);
  const auto imported = spec_from_kt_t1(t1, {}, "convolution_t1.json");
  EXPECT_EQ(imported.at("name"), "convolution_kernel");
  EXPECT_EQ(imported.at("backend"), "cuda");
  EXPECT_EQ(imported.at("source"), "convolution.cu");
  EXPECT_EQ(imported.at("problem"), json({{"size_x", 2048}, {"size_y", 1024}}));
  EXPECT_EQ(imported.at("knobs").at(0).at("choices"), json({16, 32, 48, 64, 80, 96, 112, 128}));
  EXPECT_EQ(imported.at("knobs").at(1).at("default"), 8);
  EXPECT_EQ(imported.at("buffers").at(1).at("size"), (2048 + 16) * (1024 + 16));
  EXPECT_EQ(imported.at("buffers").at(2).at("size"), 16 * 17);
  EXPECT_EQ(imported.at("buffers").at(0).at("role"), "output");
  EXPECT_EQ(imported.at("compile").at("flags"), json({"-std=c++17"}));

  TempDir dir;
  const KernelSpec spec = load_imported(dir, imported);
  EXPECT_EQ(spec.tuning->space.knob_count(), 5u);
  const std::size_t legal = expect_same_legal_configs(
      spec,
      {"use_padding == 0 or block_size_x % 32 != 0", "32 <= block_size_x * block_size_y <= 512"});
  EXPECT_GT(legal, 50u);
  EXPECT_LT(legal, 8u * 5 * 3 * 3 * 2);
}

TEST(ImportKt, TuneParamsAndRestrictionsWithKernelTunersLaunchDefaults) {
  const std::vector<std::string> restrictions{"block_size_x * block_size_y >= 64",
                                              "tile % 2 == 0 or n_items // tile > 2"};
  const auto imported = spec_from_kt_tune_params(
      "{'block_size_x': [32*i for i in range(1, 5)], 'block_size_y': [1, 2, 4],\n"
      " 'tile': list(range(1, 4)), 'n_items': [4, 8]}",
      restrictions, {1000, 300}, {.name = "stencil"});
  EXPECT_EQ(imported.at("knobs").at(2).at("name"), "tile");  // the dict's own order
  EXPECT_EQ(imported.at("launch").at("grid"),
            json({"cdiv(size_x, block_size_x)", "cdiv(size_y, block_size_y)"}));
  EXPECT_EQ(imported.at("launch").at("block"), json({"block_size_x", "block_size_y", "1"}));
  TempDir dir;
  const KernelSpec spec = load_imported(dir, imported);
  EXPECT_EQ(spec.name, "stencil");
  const std::size_t legal = expect_same_legal_configs(spec, restrictions);
  EXPECT_GT(legal, 10u);
  EXPECT_LT(legal, 4u * 3 * 3 * 2);

  KtImportOptions divided{.name = "stencil"};
  divided.grid_div = {{"block_size_x", "tile"}, {}, {}};
  EXPECT_EQ(spec_from_kt_tune_params("{'block_size_x': [32], 'tile': [1]}", {}, {1000}, divided)
                .at("launch")
                .at("grid"),
            json({"cdiv(size_x, block_size_x * tile)"}));
}

TEST(ImportKt, MistakesNameTheInput) {
  EXPECT_THROW(spec_from_kt_tune_params("{'a': [1]}", {"a in [1]"}, {8}, {.name = "k"}),
               KernelTunerError);
  EXPECT_THROW(spec_from_kt_tune_params("[1, 2]", {}, {8}, {.name = "k"}), KernelTunerError);
  EXPECT_THROW(spec_from_kt_tune_params("{'a': [1]}", {}, {}, {.name = "k"}), KernelTunerError);
  try {
    spec_from_kt_t1(json{{"ConfigurationSpace", json::object()}}, {}, "mine.json");
    FAIL();
  } catch (const KernelTunerError& error) {
    EXPECT_NE(std::string(error.what()).find("mine.json"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace cutune::testing
