// `cutune import-kt` of a tune script without an `answer`: the arrays the kernel's signature lets
// it write become inouts, and the spec is checked against its default config (a wrong config then
// fails its check); the signature reader on the declarations Kernel Tuner's examples use.
#include <gtest/gtest.h>

#include "cutune/kernel_tuner.hpp"
#include "kt/script_context.hpp"
#include "kt_testing.hpp"

namespace cutune::testing {
namespace {

using json = nlohmann::json;
const std::filesystem::path data = CUTUNE_KT_TEST_DATA;
const std::filesystem::path script = data / "c_scale/tune_scale.py";

TEST(KtSignature, TellsWhichPointersPointToConstData) {
  const std::string source = R"(
    // ExpDist(double *A) in a comment is no declaration
    extern "C" { __global__ void ExpDist(const double *A, double const* B, int m, double *out); }
    void host() { ExpDist(a, b, m, out); }
    template <typename T> __global__ void tiled(T* const x, const T* __restrict__ y) {}
  )";
  EXPECT_EQ(kt::const_pointer_parameters(source, "ExpDist"),
            std::vector<bool>({true, true, false, false}));
  EXPECT_EQ(kt::const_pointer_parameters(source, "tiled"), std::vector<bool>({false, true}));
  EXPECT_EQ(kt::const_pointer_parameters(source, "host"), std::vector<bool>());
  EXPECT_EQ(kt::const_pointer_parameters(source, "Exp"), std::nullopt);
}

TEST(KtScript, WithoutAnAnswerTheWritableArraysAreInoutsCheckedAgainstTheDefault) {
  const KtScriptSpec imported = spec_from_kt_script(read_text(script), {}, script.string());
  const json& buffers = imported.spec.at("buffers");
  EXPECT_EQ(buffers.at(0), json::parse(R"({"name": "y", "type": "f32", "size": 10000,
      "role": "inout", "fill": "random"})"));
  EXPECT_EQ(buffers.at(1).at("role"), "input");  // const float* x
  EXPECT_FALSE(imported.spec.contains("check"));
  ASSERT_EQ(imported.notes.size(), 1u);
  EXPECT_NE(imported.notes[0].find("no answer: the arrays scale_add's signature lets it write (y)"),
            std::string::npos)
      << imported.notes[0];
  TempDir dir;
  std::ofstream(dir / "scale.json") << imported.spec.dump(2);
  EXPECT_EQ(checked_against(load_spec(dir / "scale.json")), "the default config");

  // A source import-kt cannot read leaves no signature: every array is an inout.
  KtImportOptions options;
  options.source = "elsewhere.c";
  const KtScriptSpec unread = spec_from_kt_script(read_text(script), options, script.string());
  EXPECT_EQ(unread.spec.at("buffers").at(1).at("role"), "inout");
  EXPECT_NE(unread.notes.at(0).find("every array (y, x) are inouts"), std::string::npos)
      << unread.notes.at(0);
}

// End to end: every config compared with the default's results, the wrong unroll caught, and the
// tune's output saying what the configs were checked against.
TEST(KtScript, ScriptWithoutAnAnswerTunesCheckedAgainstTheDefaultConfig) {
  TempDir dir;
  const std::string out = (dir / "scale.json").string();
  const CommandResult imported =
      run_command(std::string(CUTUNE_TOOL) + " import-kt " + script.string() + " -o " + out);
  ASSERT_EQ(imported.status, 0) << imported.output;
  EXPECT_NE(imported.output.find("note: no answer"), std::string::npos) << imported.output;
  const std::string tune = "XDG_CACHE_HOME=" + (dir / "cache").string() + " " + CUTUNE_TOOL +
                           " tune " + out + " --strategy exhaustive --budget 4 --no-store";
  const CommandResult tuned = run_command(tune + " --json", /*keep_stderr_apart=*/true);
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  const json report = json::parse(tuned.output.substr(tuned.output.find('{')));
  EXPECT_EQ(report.at("outcomes"), json::parse(R"({"ok": 3, "wrong_result": 1})")) << tuned.output;
  EXPECT_EQ(report.at("checked_against"), "the default config");
  EXPECT_NE(report.at("best").at("config").at("unroll"), 3);
  const CommandResult text = run_command(tune);
  EXPECT_NE(text.output.find("outputs checked against the default config"), std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("inout 'y' differs from the default config"), std::string::npos)
      << text.output;
}

}  // namespace
}  // namespace cutune::testing
