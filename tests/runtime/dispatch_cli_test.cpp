// `cutune dispatch` and `cutune export --dispatch` end to end: the real tool over a real store, its
// JSON read back by the library.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "cppgen/hostile.hpp"
#include "cutune/dispatch.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {
namespace {

TEST(DispatchCli, WritesJsonAndHeaderAndPrintsTheHeldOutReport) {
  TempDir dir;
  {
    auto store = Store::open(dir / "results.db");
    for (int m : {64, 128, 2048, 4096}) {
      for (int block : {16, 256}) {
        StoredResult r = timed(gemm_key(fmt::format("dtype=bf16,k=512,m={},n=512", m)), block,
                               (m < 1000) == (block == 16) ? 1.0 : 1.5);
        store.record(r);
      }
    }
  }
  const auto [status, out] = run_command(fmt::format(
      "{} dispatch --db {} --family gemm --json {} --header {}", CUTUNE_TOOL,
      (dir / "results.db").string(), (dir / "rule.json").string(), (dir / "rule.hpp").string()));
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("held-out geomean best/picked: 1.0000 over 4 shapes"), std::string::npos)
      << out;
  const Dispatcher d = Dispatcher::load(dir / "rule.json");
  EXPECT_EQ(d.config_count(), 2u);
  EXPECT_EQ(d.config(d.pick(Problem::parse("dtype=bf16,k=512,m=100,n=512")))["block_m"], 16);
  std::ifstream header(dir / "rule.hpp");
  EXPECT_TRUE(header.good());

  const auto [bad_status, bad_out] = run_command(
      fmt::format("{} dispatch --db {} --family conv", CUTUNE_TOOL, (dir / "results.db").string()));
  EXPECT_NE(bad_status, 0);
  EXPECT_NE(bad_out.find("no tuned shape of family 'conv'"), std::string::npos) << bad_out;
}

// A store whose family, device and version hold a comment-ending injection and whose knob values
// hold every hostile string: both dispatch paths and the plain export write headers that compile
// and run no injected code.
TEST(DispatchCli, HostileStoredStringsReachNoGeneratedCode) {
  TempDir dir;
  const std::vector<std::string> hostile = hostile_strings();
  {
    auto store = Store::open(dir / "results.db");
    for (std::size_t shape = 0; shape < 3; ++shape) {
      for (std::size_t c = 0; c < hostile.size(); ++c) {
        StoredResult r = timed(
            {hostile[0], hostile[0], fmt::format("m={}", 64 << shape), hostile[0], hostile[3]},
            static_cast<int>(c), c == shape ? 1.0 : 2.0);
        r.config_json = nlohmann::json{{"layout", hostile[c]}}.dump();
        store.record(r);
      }
    }
  }
  // The family name reaches the command line through a file: the shell keeps its newlines.
  std::ofstream(dir / "family.txt") << hostile[0];
  const std::string db = (dir / "results.db").string();
  const std::string family = "\"$(cat " + (dir / "family.txt").string() + ")\"";
  for (const std::string& command :
       {fmt::format("{} dispatch --db {} --family {} --header {}", CUTUNE_TOOL, db, family,
                    (dir / "d.hpp").string()),
        fmt::format("{} export --dispatch --db {} --family {} --header {}", CUTUNE_TOOL, db, family,
                    (dir / "d.hpp").string()),
        fmt::format("{} export --db {} --header {}", CUTUNE_TOOL, db, (dir / "d.hpp").string())}) {
    std::filesystem::remove(dir / "d.hpp");
    const auto [status, out] = run_command(command);
    ASSERT_EQ(status, 0) << command << "\n" << out;
    const std::string main_cpp =
        "#include <cstdio>\n#include \"d.hpp\"\nint main() {\n"
        "  std::puts(\"ran\");\n}\n";
    EXPECT_EQ(compile_and_run(dir.path(), main_cpp, CUTUNE_TEST_CXX), "ran\n") << command;
  }
}

TEST(DispatchCli, ExportDispatchWritesWhatDispatchWrites) {
  TempDir dir;
  {
    auto store = Store::open(dir / "results.db");
    for (int m : {64, 128, 2048, 4096, 8192}) {
      for (int block : {16, 256}) {
        store.record(timed(gemm_key(fmt::format("dtype=bf16,k=512,m={},n=512", m)), block,
                           (m < 1000) == (block == 16) ? 1.0 : 3.0));
      }
    }
  }
  const std::string db = (dir / "results.db").string();
  const auto [status, out] = run_command(
      fmt::format("{} dispatch --db {} --family gemm --max-configs 2 --json {} --header {}",
                  CUTUNE_TOOL, db, (dir / "a.json").string(), (dir / "a.hpp").string()));
  ASSERT_EQ(status, 0) << out;
  const auto [export_status, export_out] = run_command(fmt::format(
      "{} export --dispatch --db {} --family gemm --max-configs 2 --json {} --header {}",
      CUTUNE_TOOL, db, (dir / "b.json").string(), (dir / "b.hpp").string()));
  ASSERT_EQ(export_status, 0) << export_out;
  EXPECT_EQ(export_out, out);
  EXPECT_FALSE(read_text(dir / "a.json").empty());
  EXPECT_EQ(read_text(dir / "b.json"), read_text(dir / "a.json"));
  EXPECT_EQ(read_text(dir / "b.hpp"), read_text(dir / "a.hpp"));
  EXPECT_NE(read_text(dir / "b.hpp").find("namespace cutune_dispatch"), std::string::npos);
  EXPECT_EQ(Dispatcher::load(dir / "b.json").config_count(), 2u);

  // The fitting options reach the fit: one config at most.
  const auto [one_status, one_out] = run_command(
      fmt::format("{} export --dispatch --db {} --family gemm --max-configs 1 --json {} "
                  "--namespace rules",
                  CUTUNE_TOOL, db, (dir / "c.json").string()));
  ASSERT_EQ(one_status, 0) << one_out;
  EXPECT_EQ(Dispatcher::load(dir / "c.json").config_count(), 1u);

  // Plain export is unchanged: the best config per key, not a rule.
  const auto [best_status, best_out] = run_command(fmt::format(
      "{} export --db {} --family gemm --json {}", CUTUNE_TOOL, db, (dir / "d.json").string()));
  ASSERT_EQ(best_status, 0) << best_out;
  EXPECT_NE(best_out.find("exported 5 tuned config(s)"), std::string::npos) << best_out;

  const auto [no_family, no_family_out] = run_command(fmt::format(
      "{} export --dispatch --db {} --json {}", CUTUNE_TOOL, db, (dir / "e.json").string()));
  EXPECT_NE(no_family, 0);
  EXPECT_NE(no_family_out.find("export --dispatch: pass --family NAME"), std::string::npos)
      << no_family_out;
  const auto [stray, stray_out] = run_command(fmt::format(
      "{} export --db {} --max-configs 2 --json {}", CUTUNE_TOOL, db, (dir / "f.json").string()));
  EXPECT_NE(stray, 0);
  EXPECT_NE(stray_out.find("need --dispatch"), std::string::npos) << stray_out;
  EXPECT_FALSE(std::filesystem::exists(dir / "f.json"));
  // --spec reaches the dispatch fit (the Kernel Tuner export's --spec is the same option).
  const auto missing_spec = (dir / "no-such-spec.json").string();
  const auto [spec_status, spec_out] =
      run_command(fmt::format("{} export --dispatch --db {} --family gemm --spec {} --json {}",
                              CUTUNE_TOOL, db, missing_spec, (dir / "g.json").string()));
  EXPECT_NE(spec_status, 0);
  EXPECT_NE(spec_out.find(missing_spec), std::string::npos) << spec_out;
}

}  // namespace
}  // namespace cutune::testing
