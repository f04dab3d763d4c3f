// Issue 17: a compile the machine stopped (a file size limit, a compiler killed from outside) is
// transient: retried, never cached, and the same key compiles once the machine lets it.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <future>

#include "compile_pool_testing.hpp"
#include "eval/compile_pool.hpp"
#include "process_testing.hpp"

namespace cutune::eval {
namespace {

class CompileTransientTest : public CompilePoolTest {
 protected:
  // The real compiler under the file size limit held in `limit` (what `ulimit -f` takes): the
  // request's key does not name the limit, as a tuner's key does not name the free disk space.
  CompileRequest limited(const std::filesystem::path& source) {
    return {
        {"sh", "-c", "ulimit -f \"$(cat '" + (dir_ / "limit").string() + "')\" && exec c++ \"$@\"",
         "sh", "-O0", "-shared", "-fPIC", source.string(), "-o", "{output}"},
        source.string(),
        ".so",
        60s,
        1};
  }
  bool no_error_log(const CompileResult& result) const {
    return !std::filesystem::exists(dir_ / "cache" / (result.key_hash + ".error.log"));
  }
};

TEST_F(CompileTransientTest, AFileSizeLimitIsRetriedNotCachedAndCompilesOnceLifted) {
  // Enough code that the assembler's output passes the limit of one block.
  std::string text = "extern \"C\" int value() { return 41 + 1; }\n";
  for (int i = 0; i < 200; ++i)
    text += "int f" + std::to_string(i) + "(int x) { return x * " + std::to_string(i) + " + 3; }\n";
  const auto source = write("k.cpp", text);
  write("limit", "1");
  CompilePool pool(dir_ / "cache", 1);
  const CompileResult full = pool.submit(limited(source)).get();
  ASSERT_EQ(full.status, CompileResult::Status::transient) << full.log;
  EXPECT_EQ(full.tries, 2);  // the first try and its one retry
  EXPECT_TRUE(reads_as_transient(full.log)) << full.log;
  EXPECT_TRUE(no_error_log(full));

  write("limit", "unlimited");
  const CompileResult lifted = pool.submit(limited(source)).get();
  ASSERT_EQ(lifted.status, CompileResult::Status::ok) << lifted.log;
  EXPECT_FALSE(lifted.cached);
  void* handle = ::dlopen(lifted.output.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  EXPECT_EQ(reinterpret_cast<int (*)()>(::dlsym(handle, "value"))(), 42);
  ::dlclose(handle);
}

TEST_F(CompileTransientTest, ACompilerKilledFromOutsideIsTransientAndNotCached) {
  // Constant evaluation that takes hours: cc1plus is still at work when the test kills it.
  const auto source =
      write("slow.cpp",
            "constexpr long spin() { long s = 0; for (long i = 0; i < (1L << 50); "
            "++i) s += i ^ (s >> 3); return s; }\nconstexpr long value = spin();\n");
  CompileRequest request{
      {"c++", "-fconstexpr-loop-limit=2147483647", "-fconstexpr-ops-limit=9223372036854775807",
       "-c", source.string(), "-o", "{output}"},
      "slow",
      ".o",
      60s,
      0};
  CompilePool pool(dir_ / "cache", 1);
  auto compiling = pool.submit(request);
  ASSERT_EQ(testing::signal_descendant("cc1plus", SIGKILL, 20s), 1);
  const CompileResult killed = compiling.get();
  EXPECT_EQ(killed.status, CompileResult::Status::transient) << killed.log;
  EXPECT_TRUE(no_error_log(killed));
}

TEST_F(CompileTransientTest, ACachedErrorLogThatReadsAsTransientIsCompiledAgain) {
  // What an older cutune left: a full disk's message cached as the config's compile error.
  const auto source = write("k.cpp", "extern \"C\" int value() { return 7; }\n");
  write("limit", "unlimited");
  CompilePool pool(dir_ / "cache", 1);
  const CompileResult first = pool.submit(limited(source)).get();
  ASSERT_EQ(first.status, CompileResult::Status::ok) << first.log;
  std::filesystem::rename(first.output.string() + ".key",
                          dir_ / "cache" / (first.key_hash + ".error.log.key"));
  std::filesystem::remove(first.output);
  std::ofstream(dir_ / "cache" / (first.key_hash + ".error.log"))
      << "/usr/bin/ld: final link failed: No space left on device\n";
  const CompileResult again = pool.submit(limited(source)).get();
  EXPECT_EQ(again.status, CompileResult::Status::ok) << again.log;
  EXPECT_FALSE(again.cached);
}

}  // namespace
}  // namespace cutune::eval
