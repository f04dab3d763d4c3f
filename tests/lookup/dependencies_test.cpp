// A program linked with the lookup runtime alone needs nothing beyond the C++ runtime and libc at
// run time: no SQLite, XGBoost, muparser, fmt, libpq, zlib or CUDA (ldd lists what it loads).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "lookup_testing.hpp"

namespace cutune::testing {
namespace {

TEST(LookupDependencies, OnlyTheCxxRuntimeAndLibc) {
  const CommandResult ldd = run_command(std::string("ldd ") + CUTUNE_LOOKUP_PROBE);
  ASSERT_EQ(ldd.status, 0) << ldd.output;
  // A sanitized build (scripts/test.sh --sanitize) links every program with the sanitizers' own
  // runtimes; a deploying program is never built that way.
  const std::string sanitizers = CUTUNE_SANITIZED ? R"(|libasan\.so\.\d+|libubsan\.so\.\d+)" : "";
  const std::regex allowed(
      R"(^\s*(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|/lib/ld-linux-aarch64\.so\.1|)"
      R"(ld-linux[-\w.]*\.so\.\d|libstdc\+\+\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libc\.so\.6)" +
      sanitizers + R"()\b)");
  std::istringstream lines(ldd.output);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++count;
    EXPECT_TRUE(std::regex_search(line, allowed)) << "unexpected dependency: " << line;
  }
  EXPECT_GE(count, 3u) << ldd.output;  // libstdc++, libc and the loader at least
}

TEST(LookupDependencies, TheProbeAnswersFromAnExportedFile) {
  TempDir dir;
  Store store = Store::open(dir / "results.db");
  fill_toy_store(store);
  std::ofstream(dir / "winners.json") << export_json(store.best_per_key());
  const auto probe = [&](const std::string& problem) {
    return run_command(fmt::format("{} {} toy '{}'", CUTUNE_LOOKUP_PROBE,
                                   (dir / "winners.json").string(), problem));
  };
  const CommandResult tuned = probe("dtype=f32,m=256,n=512");
  EXPECT_EQ(tuned.status, 0) << tuned.output;
  EXPECT_NE(tuned.output.find(R"(tuned {"block":16,"layout":"row"})"), std::string::npos)
      << tuned.output;
  const CommandResult near = probe("dtype=f32,m=300,n=512");
  EXPECT_EQ(near.status, 0) << near.output;
  EXPECT_NE(near.output.find("cutune: toy 'dtype=f32,m=300,n=512' on 'cpu: test' is untuned; "
                             "using the nearest tuned shape 'dtype=f32,m=256,n=512'"),
            std::string::npos)
      << near.output;  // on stderr by default
  EXPECT_NE(near.output.find(R"(fallback {"block":16,"layout":"row"})"), std::string::npos);
}

}  // namespace
}  // namespace cutune::testing
