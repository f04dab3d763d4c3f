#include "eval/compile_pool.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>

#include "compile_pool_testing.hpp"

namespace cutune::eval {
namespace {

TEST_F(CompilePoolTest, CompilesInParallelAndServesRepeatsFromTheCache) {
  auto source = write("k.cpp", "extern \"C\" int value() { return VALUE; }\n");
  CompilePool pool(dir_ / "cache", 2);
  std::vector<CompileRequest> batch{shared_object(source, "VALUE=7"),
                                    shared_object(source, "VALUE=9")};
  auto first = pool.compile(batch);
  ASSERT_EQ(first.size(), 2u);
  for (const auto& result : first) {
    ASSERT_EQ(result.status, CompileResult::Status::ok) << result.log;
    EXPECT_FALSE(result.cached);
    EXPECT_GT(result.wall_s, 0.0);
  }
  EXPECT_NE(first[0].output, first[1].output);

  void* handle = ::dlopen(first[1].output.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  auto value = reinterpret_cast<int (*)()>(::dlsym(handle, "value"));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value(), 9);
  ::dlclose(handle);

  // A second pool (another tune) finds the same outputs on disk.
  CompilePool again(dir_ / "cache", 1);
  auto second = again.compile(batch);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(second[i].cached);
    EXPECT_EQ(second[i].wall_s, 0.0);
    EXPECT_EQ(second[i].output, first[i].output);
  }
  // No temporary file is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "cache")) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST_F(CompilePoolTest, KeepsTheLogOfACompileErrorAndDoesNotRetryIt) {
  auto source = write("bad.cpp", "int broken( { return 0; }\n");
  CompilePool pool(dir_ / "cache", 1);
  auto result = pool.submit(shared_object(source, "X=1")).get();
  EXPECT_EQ(result.status, CompileResult::Status::error);
  EXPECT_NE(result.log.find("bad.cpp:1"), std::string::npos) << result.log;
  ASSERT_FALSE(result.log_file.empty());
  EXPECT_TRUE(std::filesystem::exists(result.log_file));

  auto again = pool.submit(shared_object(source, "X=1")).get();
  EXPECT_EQ(again.status, CompileResult::Status::error);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.log, result.log);
}

TEST_F(CompilePoolTest, KillsACompileThatRunsPastItsLimit) {
  // Constant evaluation that would take hours keeps the real compiler busy.
  auto source = write("slow.cpp",
                      "constexpr long spin() { long s = 0; for (long i = 0; i < (1L << 50); ++i) "
                      "s += i ^ (s >> 3); return s; }\n"
                      "constexpr long value = spin();\n");
  CompilePool pool(dir_ / "cache", 1);
  auto request = shared_object(source, "X=1");
  request.command.insert(
      request.command.begin() + 1,
      {"-fconstexpr-loop-limit=2147483647", "-fconstexpr-ops-limit=9223372036854775807"});
  request.limit = 700ms;
  auto start = std::chrono::steady_clock::now();
  auto result = pool.submit(request).get();
  // Its own verdict; or, starved of CPU by other work on this machine even when tried again with a
  // stretched limit, no verdict (eval/starvation.hpp).
  EXPECT_TRUE(result.status == CompileResult::Status::timeout ||
              (result.status == CompileResult::Status::transient && result.starvation.starved))
      << result.log;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cache" / (result.key_hash + ".error.log")));
}

int value_of(const std::filesystem::path& object) {
  void* handle = ::dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return -1;
  auto value = reinterpret_cast<int (*)()>(::dlsym(handle, "value"));
  const int result = value == nullptr ? -1 : value();
  ::dlclose(handle);
  return result;
}

TEST_F(CompilePoolTest, AnEntryWhoseStoredKeyDiffersIsRecompiledNotLoaded) {
  auto source = write("k.cpp", "extern \"C\" int value() { return VALUE; }\n");
  const CompileRequest wanted = shared_object(source, "VALUE=3");
  const CompileRequest other = shared_object(source, "VALUE=4");
  std::filesystem::path entry;
  std::filesystem::path planted;
  {
    CompilePool pool(dir_ / "cache", 1);
    entry = pool.submit(wanted).get().output;
    planted = pool.submit(other).get().output;
  }
  ASSERT_EQ(value_of(entry), 3);
  // Plant the other object, with the key it was made from, under the wanted entry's name: what a
  // hash collision or a stale file from another key would look like.
  std::filesystem::copy_file(planted, entry, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(planted.string() + ".key", entry.string() + ".key",
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(value_of(entry), 4);

  CompilePool pool(dir_ / "cache", 1);
  const CompileResult again = pool.submit(wanted).get();
  ASSERT_EQ(again.status, CompileResult::Status::ok) << again.log;
  EXPECT_FALSE(again.cached);
  EXPECT_EQ(value_of(again.output), 3);

  // An entry with no key beside it (written by hand, or by an older cutune) is not trusted either.
  std::filesystem::remove(entry.string() + ".key");
  const CompileResult keyless = pool.submit(wanted).get();
  EXPECT_FALSE(keyless.cached);
  EXPECT_EQ(value_of(keyless.output), 3);
  EXPECT_TRUE(pool.submit(wanted).get().cached);
}

TEST_F(CompilePoolTest, AnErrorLogWhoseStoredKeyDiffersIsNotServed) {
  auto bad = write("bad.cpp", "int broken( { return 0; }\n");
  auto good = write("k.cpp", "extern \"C\" int value() { return VALUE; }\n");
  const CompileRequest wanted = shared_object(good, "VALUE=5");
  CompilePool pool(dir_ / "cache", 1);
  const CompileResult failed = pool.submit(shared_object(bad, "X=1")).get();
  ASSERT_EQ(failed.status, CompileResult::Status::error);
  // The failed key's log and key, planted as the wanted key's error log.
  const CompileResult first = pool.submit(wanted).get();
  std::filesystem::remove(first.output);
  const auto planted_log = dir_ / "cache" / (first.key_hash + ".error.log");
  std::filesystem::copy_file(failed.log_file, planted_log);
  std::filesystem::copy_file(failed.log_file.string() + ".key", planted_log.string() + ".key");

  const CompileResult again = pool.submit(wanted).get();
  ASSERT_EQ(again.status, CompileResult::Status::ok) << again.log;
  EXPECT_EQ(value_of(again.output), 5);
}

TEST_F(CompilePoolTest, SharesOneCompileBetweenIdenticalRequestsInFlight) {
  auto source = write("k.cpp", "extern \"C\" int value() { return VALUE; }\n");
  CompilePool pool(dir_ / "cache", 2);
  auto a = pool.submit(shared_object(source, "VALUE=1"));
  auto b = pool.submit(shared_object(source, "VALUE=1"));
  EXPECT_EQ(a.get().output, b.get().output);
  EXPECT_EQ(a.get().status, CompileResult::Status::ok);
}

}  // namespace
}  // namespace cutune::eval
