// `cutune import-kt` of Kernel Tuner tune scripts (issue 32): the tune_kernel() call's arguments
// in their order and dtypes, answer, cmem_args, grid_div_* and lang="C" onto the spec, read by
// the real spec loader; a C script tuned end to end through the CLI; bad input named by line.
#include <gtest/gtest.h>

#include "cutune/kernel_tuner.hpp"
#include "kt_testing.hpp"

namespace cutune::testing {
namespace {

using json = nlohmann::json;
const std::filesystem::path data = CUTUNE_KT_TEST_DATA;

KtScriptSpec import_script(const std::filesystem::path& script, KtImportOptions options = {}) {
  return spec_from_kt_script(read_text(script), options, script.string());
}

TEST(KtScript, CScriptBecomesACpuSpecWithTheKernelsOwnArguments) {
  KtImportOptions options;
  options.reference = "axpy_reference";
  const KtScriptSpec imported = import_script(data / "c_axpy/tune_axpy.py", options);
  const json spec = imported.spec;
  EXPECT_EQ(spec.at("backend"), "cpu");
  EXPECT_EQ(spec.at("entry"), "axpy");
  EXPECT_EQ(std::filesystem::path(spec.at("source").get<std::string>()), data / "c_axpy/axpy.c");
  EXPECT_EQ(spec.at("arguments"), json::parse(R"([{"buffer": "y"}, {"buffer": "x"},
      {"name": "n", "type": "i32", "value": 100000},
      {"name": "alpha", "type": "f32", "value": 2.5}])"));
  EXPECT_EQ(spec.at("buffers").at(0),
            json::parse(R"({"name": "y", "type": "f32", "size": 100000, "role": "output"})"));
  EXPECT_EQ(spec.at("buffers").at(1).at("fill"), "random");
  EXPECT_EQ(spec.at("check"), json::parse(R"({"entry": "axpy_reference"})"));
  EXPECT_EQ(spec.at("knobs").at(0).at("name"), "unroll");  // the dict's order, not sorted
  EXPECT_EQ(spec.at("knobs").at(1).at("choices"), json({64, 256, 1024}));
  EXPECT_EQ(spec.at("constraints").at(0).at("expr"), "((block % unroll) == 0)");
  EXPECT_EQ(spec.at("compile").at("compiler"), "g++");
  EXPECT_FALSE(spec.contains("launch"));
  // Loaded by the spec loader as it stands.
  TempDir dir;
  std::ofstream(dir / "axpy.json") << spec.dump(2);
  const KernelSpec loaded = load_spec(dir / "axpy.json");
  ASSERT_EQ(loaded.arguments.size(), 4u);
  EXPECT_EQ(loaded.arguments[3].type, "f32");
  EXPECT_EQ(loaded.tuning->space.knob_count(), 2u);
}

TEST(KtScript, AnswerComputedInPythonWithoutAReferenceIsANote) {
  const KtScriptSpec imported = import_script(data / "c_axpy/tune_axpy.py");
  EXPECT_FALSE(imported.spec.contains("check"));
  ASSERT_EQ(imported.notes.size(), 1u);
  EXPECT_NE(imported.notes[0].find("answer 0 is computed in Python"), std::string::npos);
}

TEST(KtScript, CudaScriptCarriesConstantsGridDivisorsAndARunKernelReference) {
  const json spec = import_script(data / "cuda_blur/tune_blur.py").spec;
  EXPECT_EQ(spec.at("backend"), "cuda");
  EXPECT_EQ(spec.at("problem"), json::parse(R"({"size_x": 1000, "size_y": 600})"));
  EXPECT_EQ(spec.at("arguments"), json::parse(R"([{"buffer": "output"}, {"buffer": "image"},
      {"name": "width", "type": "i32", "value": 1000},
      {"name": "height", "type": "i32", "value": 600},
      {"name": "scale", "type": "f32", "value": 0.5}])"));
  // The weights only fill the constant: a buffer of their own, no argument.
  EXPECT_EQ(
      spec.at("buffers").at(2),
      json::parse(
          R"({"name": "weights", "type": "f32", "size": 9, "role": "input", "fill": "random"})"));
  EXPECT_EQ(spec.at("constants"), json::parse(R"([{"symbol": "d_weights", "buffer": "weights"}])"));
  EXPECT_EQ(spec.at("launch"), json::parse(R"({"problem_size": ["size_x", "size_y"],
      "grid_div": {"x": ["block_size_x"], "y": ["block_size_y", "tile_size_y"]},
      "block": ["block_size_x", "block_size_y", 1]})"));
  EXPECT_EQ(spec.at("check"), json::parse(R"({"entry": "blur_naive",
      "config": {"block_size_x": 32, "block_size_y": 8},
      "launch": {"problem_size": ["size_x", "size_y"],
                 "grid_div": {"x": ["block_size_x"], "y": ["block_size_y"]},
                 "block": ["block_size_x", "block_size_y", 1]}})"));
  EXPECT_EQ(spec.at("compile").at("flags"), json({"-Dkernel_tuner=1", "-Dblock_size_z=1"}));
  EXPECT_EQ(spec.at("compile").at("compiler"), "nvcc");  // lang "CUDA": PyCUDA's nvcc

  TempDir dir;
  std::ofstream(dir / "blur.json") << spec.dump(2);
  const KernelSpec loaded = load_spec(dir / "blur.json");
  ASSERT_EQ(loaded.constants.size(), 1u);
  EXPECT_EQ(loaded.constants[0].buffer, 2);
  // Kernel Tuner's grid: ceil(problem / product of the divisors), per dimension.
  const Config config = loaded.tuning->space.complete(
      {{"block_size_x", 64}, {"block_size_y", 4}, {"tile_size_y", 2}});
  const Problem problem = loaded.resolve({});
  EXPECT_EQ(loaded.launch->grid[0].evaluate(config, problem, Device{}), 16);  // 1000 / 64
  EXPECT_EQ(loaded.launch->grid[1].evaluate(config, problem, Device{}), 75);  // 600 / 8
  EXPECT_EQ(loaded.launch->grid[2].evaluate(config, problem, Device{}), 1);
  EXPECT_EQ(loaded.check->launch->grid[1].evaluate(config, problem, Device{}), 150);  // 600 / 4
}

TEST(KtScript, BadScriptsAreNamedByFileAndLine) {
  const auto error = [](const std::string& script) {
    try {
      (void)spec_from_kt_script(script, {}, "tune.py");
    } catch (const KernelTunerError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("import numpy\nx = 1\n"), "tune.py: no tune_kernel() call");
  const std::string python_int = error(
      "import numpy\nfrom kernel_tuner import tune_kernel\nn = 100\n"
      "a = numpy.zeros(n).astype(numpy.float32)\n"
      "tune_kernel('k', 'k.cu', n, [a, n], {'block_size_x': [32]})\n");
  EXPECT_NE(python_int.find("tune.py:5: argument 1: a Python number"), std::string::npos)
      << python_int;
  const std::string unreadable = error(
      "import numpy\nfrom kernel_tuner import tune_kernel\n"
      "a = numpy.frombuffer(b)\n"
      "tune_kernel('k', 'k.cu', 10,\n    [a], {'block_size_x': [32]})\n");
  EXPECT_NE(unreadable.find("tune.py:4: arguments: tune.py:3: "), std::string::npos) << unreadable;
  const std::string texture = error(
      "import numpy\nfrom kernel_tuner import tune_kernel\n"
      "a = numpy.zeros(4, dtype=numpy.uint8)\n"
      "tune_kernel('k', 'k.cu', 4, [a], {'block_size_x': [32]}, texmem_args={'t': a})\n");
  EXPECT_NE(texture.find("tune.py:4: texmem_args"), std::string::npos) << texture;
}

// lang="C" end to end: import-kt writes the spec beside nothing but itself (the source named
// relative to it), and `cutune tune` tunes it, every config checked against the reference.
TEST(KtScript, CScriptTunesThroughTheCli) {
  TempDir dir;
  const std::string out = (dir / "axpy.json").string();
  const CommandResult imported = run_command(std::string(CUTUNE_TOOL) + " import-kt " +
                                             (data / "c_axpy/tune_axpy.py").string() +
                                             " --reference axpy_reference -o " + out);
  ASSERT_EQ(imported.status, 0) << imported.output;
  EXPECT_NE(imported.output.find("spec axpy: 2 knobs"), std::string::npos) << imported.output;
  const CommandResult tuned =
      run_command("XDG_CACHE_HOME=" + (dir / "cache").string() + " " + CUTUNE_TOOL + " tune " +
                  out + " --strategy exhaustive --budget 12 --no-store --json");
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  const json report = json::parse(tuned.output.substr(tuned.output.find('{')));
  // Every config of the space measured and checked: none wrong, none failed.
  EXPECT_EQ(report.at("outcomes"), json::parse(R"({"ok": 12})")) << tuned.output;
}

}  // namespace
}  // namespace cutune::testing
