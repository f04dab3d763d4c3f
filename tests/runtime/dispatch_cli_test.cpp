// `cutune dispatch` end to end: the real tool over a real store, its JSON read back by the library.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "cutune/dispatch.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {
namespace {

std::pair<int, std::string> run(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buffer[4096];
  while (std::size_t got = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  return {pclose(pipe), out};
}

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
  const auto [status, out] = run(fmt::format(
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

  const auto [bad_status, bad_out] = run(
      fmt::format("{} dispatch --db {} --family conv", CUTUNE_TOOL, (dir / "results.db").string()));
  EXPECT_NE(bad_status, 0);
  EXPECT_NE(bad_out.find("no tuned shape of family 'conv'"), std::string::npos) << bad_out;
}

}  // namespace
}  // namespace cutune::testing
