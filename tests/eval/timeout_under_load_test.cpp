// Issue 17: a timeout is a verdict on the config only when it is the config's own. A compile that
// runs past its limit while other work starves it of CPU is tried again alone and, if the machine
// stays loaded, returned as transient; never as a timeout, never cached. The load here is real:
// spinning processes, many per core, started by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <thread>
#include <vector>

#include "compile_pool_testing.hpp"
#include "eval/child_process.hpp"
#include "eval/compile_pool.hpp"
#include "eval/starvation.hpp"

namespace cutune::eval {
namespace {

// Spinning processes, `per_core` for every core, each in a process group of its own (killed
// with the object).
class Load {
 public:
  explicit Load(unsigned per_core) {
    const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    for (long i = 0; i < cores * static_cast<long>(per_core); ++i) {
      spinners_.push_back(std::make_unique<ChildProcess>(
          std::vector<std::string>{"sh", "-c", "while :; do :; done"}, ChildProcess::Options{}));
    }
  }

 private:
  std::vector<std::unique_ptr<ChildProcess>> spinners_;
};

class TimeoutUnderLoadTest : public CompilePoolTest {
 protected:
  // A "compiler" that needs some CPU: a shell loop, then the output.
  CompileRequest busy_compile(const std::string& name, int iterations, int limit_ms) {
    return {{"sh", "-c",
             "i=0; while [ $i -lt " + std::to_string(iterations) +
                 " ]; do i=$((i+1)); done; : > \"$1\"",
             "sh", "{output}"},
            name + std::to_string(iterations),
            ".out",
            std::chrono::milliseconds(limit_ms),
            2};
  }
  bool cached_error(const CompileResult& result) const {
    return std::filesystem::exists(dir_ / "cache" / (result.key_hash + ".error.log"));
  }
};

TEST_F(TimeoutUnderLoadTest, ATimeoutWhileOtherWorkStarvesTheCompilerIsNoVerdict) {
  CompilePool pool(dir_ / "cache", 1);
  auto load = std::make_unique<Load>(16);
  // The load ends after the first try: the retry, alone, may then finish.
  std::jthread lift([&] {
    std::this_thread::sleep_for(3s);
    load.reset();
  });
  const CompileResult result = pool.submit(busy_compile("starved", 400000, 2500)).get();
  lift.join();
  EXPECT_GE(result.tries, 2) << "the first try, starved, must time out: " << result.log;
  EXPECT_NE(result.status, CompileResult::Status::timeout) << result.log;
  EXPECT_NE(result.status, CompileResult::Status::error) << result.log;
  EXPECT_FALSE(cached_error(result));
  if (result.status == CompileResult::Status::transient) {
    // The machine stayed loaded (other work than this test's): said so, with the figures.
    EXPECT_NE(result.log.find("starved"), std::string::npos) << result.log;
  } else {
    EXPECT_EQ(result.status, CompileResult::Status::ok) << result.log;
  }
}

// A compiler that spins past its limit is judged by what it got: its limit in CPU (a verdict,
// `timeout`) or not (tried alone again with a stretched limit, then transient). Which one depends
// on the load this machine carries besides the test, so the test checks that the outcome follows
// the figures.
TEST_F(TimeoutUnderLoadTest, ACompilerThatSpinsPastItsLimitIsJudgedByTheTimeItGot) {
  CompilePool pool(dir_ / "cache", 1);
  CompileRequest spin{{"sh", "-c", "while :; do :; done"}, "spin", ".out", 1500ms, 2};
  const CompileResult result = pool.submit(spin).get();
  EXPECT_FALSE(cached_error(result));
  if (result.status == CompileResult::Status::timeout) {
    // At once, or after tries with a stretched limit once it got its limit in CPU.
    EXPECT_LE(result.tries, 3);
    EXPECT_FALSE(result.starvation.starved) << result.starvation.detail;
  } else {
    ASSERT_EQ(result.status, CompileResult::Status::transient) << result.log;
    EXPECT_EQ(result.tries, 3);
    EXPECT_TRUE(result.starvation.starved) << result.starvation.detail;
  }
  EXPECT_NE(result.starvation.detail.find("CPU"), std::string::npos) << result.starvation.detail;
}

TEST(Starvation, ASpinnerAmongManySpinnersIsStarvedAndItsGroupCpuIsCounted) {
  Load load(12);
  const StarvationProbe probe;
  ChildProcess spinner({"sh", "-c", "while :; do :; done"}, {});
  std::this_thread::sleep_for(1500ms);
  const Starvation judged =
      probe.judge(group_cpu_seconds(spinner.pid()), 1.5, group_wait_seconds(spinner.pid()));
  EXPECT_TRUE(judged.starved) << judged.detail;
  EXPECT_DOUBLE_EQ(judged.stretch, 2.0) << judged.detail;  // it got under half of 1.5 s
  EXPECT_GT(group_cpu_seconds(spinner.pid()), 0.0);
}

// A process that sleeps past its limit on a machine just as busy did not want the CPU: its
// timeout is its own (a hang), not the machine's.
TEST(Starvation, ASleeperAmongManySpinnersIsNotStarved) {
  Load load(12);
  const StarvationProbe probe;
  ChildProcess sleeper({"sleep", "30"}, {});
  std::this_thread::sleep_for(1500ms);
  const double waited = group_wait_seconds(sleeper.pid());
  if (waited < 0) GTEST_SKIP() << "this kernel keeps no run delays (/proc/PID/task/*/schedstat)";
  const Starvation judged = probe.judge(group_cpu_seconds(sleeper.pid()), 1.5, waited);
  EXPECT_FALSE(judged.starved) << judged.detail;
  EXPECT_NE(judged.detail.find("waited"), std::string::npos) << judged.detail;
}

}  // namespace
}  // namespace cutune::eval
