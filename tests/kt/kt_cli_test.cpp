// `cutune import-kt` and `cutune export --kt-cache/--t4/--csv` as a user runs them.
#include <gtest/gtest.h>

#include <sstream>

#include "kt_testing.hpp"

namespace cutune::testing {
namespace {

using json = nlohmann::json;

CommandResult cutune(const std::string& args) {
  return run_command(std::string(CUTUNE_TOOL) + " " + args);
}

TEST(KtCli, ImportT1WritesASpecAndSaysWhatIsMissing) {
  TempDir dir;
  const auto out = (dir / "conv.json").string();
  const CommandResult r =
      cutune(std::string("import-kt ") + CUTUNE_KT_TEST_DATA "/convolution_t1.json -o " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("convolution.cu"), std::string::npos) << r.output;  // no source yet
  EXPECT_EQ(json::parse(read_text(out)).at("entry"), "convolution_kernel");
  std::ofstream(dir / "convolution.cu") << "// kernel\n";
  const CommandResult again =
      cutune(std::string("import-kt ") + CUTUNE_KT_TEST_DATA "/convolution_t1.json -o " + out);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("spec convolution_kernel: 5 knobs"), std::string::npos)
      << again.output;
}

TEST(KtCli, ImportTuneParamsToStdout) {
  const CommandResult r = cutune(
      "import-kt --tune-params \"{'block_size_x': [32, 64, 128]}\" --restriction "
      "\"block_size_x > 32\" --problem-size 100000 --name vadd");
  ASSERT_EQ(r.status, 0) << r.output;
  const json spec = json::parse(r.output);
  EXPECT_EQ(spec.at("constraints").at(0).at("expr"), "(block_size_x > 32)");
  EXPECT_EQ(spec.at("launch").at("grid"), json({"cdiv(size_x, block_size_x)"}));
  const CommandResult bad = cutune(
      "import-kt --tune-params \"{'b': [1]}\" --restriction "
      "\"lambda p: p\" --problem-size 8 --name k");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("restriction 1"), std::string::npos) << bad.output;
}

TEST(KtCli, ExportsOneKeyInKernelTunersFormatsAndEveryRowAsCsv) {
  TempDir dir;
  {
    Store store = Store::open(dir / "results.db");
    for (const std::string problem : {"size_x=1024", "size_x=2048"}) {
      for (int block : {32, 64, 128}) {
        StoredResult r;
        r.key = {"vadd", "v1", problem, "NVIDIA H200 sm_90", "nvcc 13"};
        r.config_hash = fmt::format("b{}", block);
        r.config_json = json{{"block_size_x", block}, {"mode", "fast, \"quoted\""}}.dump();
        r.measurement.outcome = block == 128 ? Outcome::compile_error : Outcome::ok;
        r.measurement.time_ms = block == 128 ? NAN : 1.0 / block;
        store.record(r);
      }
    }
  }
  const std::string db = fmt::format("--db {}", (dir / "results.db").string());
  const CommandResult ambiguous =
      cutune(fmt::format("export {} --kt-cache {}", db, (dir / "c.json").string()));
  EXPECT_NE(ambiguous.status, 0);
  EXPECT_NE(ambiguous.output.find("2 match"), std::string::npos) << ambiguous.output;

  const CommandResult r = cutune(fmt::format(
      "export {} --problem size_x=2048 --kt-cache {} --t4 {} --csv {}", db,
      (dir / "c.json").string(), (dir / "t4.json").string(), (dir / "all.csv").string()));
  ASSERT_EQ(r.status, 0) << r.output;
  const json cache = json::parse(read_text(dir / "c.json"));
  EXPECT_EQ(cache.at("problem_size"), 2048);
  EXPECT_EQ(cache.at("tune_params_keys"), json({"block_size_x", "mode"}));
  EXPECT_EQ(cache.at("tune_params").at("block_size_x"), json({32, 64, 128}));
  EXPECT_EQ(cache.at("cache").at("64,fast, \"quoted\"").at("time"), 1.0 / 64);
  EXPECT_EQ(cache.at("cache").at("128,fast, \"quoted\"").at("time"), "CompilationFailedConfig");
  const json t4 = json::parse(read_text(dir / "t4.json"));
  EXPECT_EQ(t4.at("results").size(), 3u);
  EXPECT_EQ(t4.at("results").at(2).at("invalidity"), "compile");

  const std::string csv = read_text(dir / "all.csv");
  std::istringstream lines(csv);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("family,family_version,problem,device,toolchain,config_hash,"
                         "block_size_x,mode,outcome,time_ms",
                         0),
            0u)
      << header;
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line);) ++count;
  EXPECT_EQ(count, 3u);  // every row of the key --problem selects
  const CommandResult all = cutune(fmt::format("export {} --csv {}", db, (dir / "b.csv").string()));
  ASSERT_EQ(all.status, 0) << all.output;
  EXPECT_NE(all.output.find("wrote 6 measurement(s) of 2 key(s)"), std::string::npos) << all.output;
  EXPECT_NE(csv.find(",\"fast, \"\"quoted\"\"\",compile_error,,"), std::string::npos) << csv;
}

#ifdef CUTUNE_TEST_GEMM
// A built-in family's --problem is read by the one problem rule: gemm's "m=64" is the key of m=64
// with the example's n, k and dtype, as `cutune tune gemm --problem m=64` stores it.
TEST(KtCli, ExportReadsABuiltInFamilysProblemByItsRule) {
  TempDir dir;
  {
    Store store = Store::open(dir / "results.db");
    StoredResult r;
    r.key = {"gemm", "v1", "dtype=bf16,k=4096,m=64,n=4096", "NVIDIA H200 sm_90", "nvcc 13"};
    r.config_hash = "c1";
    r.config_json = json{{"tile_m", 128}}.dump();
    r.measurement.outcome = Outcome::ok;
    r.measurement.time_ms = 0.5;
    store.record(r);
  }
  const CommandResult r =
      cutune(fmt::format("export --db {} --family gemm --problem m=64 --csv {}",
                         (dir / "results.db").string(), (dir / "gemm.csv").string()));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 1 measurement(s) of 1 key(s)"), std::string::npos) << r.output;
}
#endif

}  // namespace
}  // namespace cutune::testing
