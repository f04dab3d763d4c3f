// Issue 17 against the CPU evaluator, with the real compiler and worker: a worker killed from
// outside is measured again, not recorded as the config's crash; a kernel wrong only on some
// calls, or writing outside its buffers, is wrong in the final rounds too; a reference whose
// symbol is missing, or buffers that cannot fit in memory, are one clear error up front.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <future>

#include "../../eval/process_testing.hpp"
#include "cpu_testing.hpp"
#include "cutune/cpu.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

using namespace std::chrono_literals;

// /proc/PID/comm keeps 15 characters of "cutune-cpu-worker".
constexpr const char* kWorker = "cutune-cpu-work";

class RobustEvaluatorTest : public CpuEvaluatorTest {
 protected:
  KernelSpec spec_ = load_spec(examples / "cpu/faults/faults.json");
  Config mode(const std::string& name) const {
    return spec_.tuning->space.complete({{"MODE", Value(name)}});
  }
};

// The "hang" mode keeps the worker busy until its watchdog (1.5 s): long enough to kill it.
TEST_F(RobustEvaluatorTest, AWorkerKilledFromOutsideOnceIsMeasuredAgain) {
  CpuEvaluator evaluator(spec_, {}, options());
  const int starts = evaluator.stats().worker_starts;
  auto killer = std::async(std::launch::async,
                           [] { return testing::signal_descendant(kWorker, SIGKILL, 20s); });
  const std::vector<Config> batch{mode("hang")};
  // The killer finds the worker idle (the evaluator's up-front check started it) or while the
  // kernel spins: either way the next request sees a worker that SIGKILL ended.
  const Measurement m = evaluator.evaluate(batch).at(0);
  ASSERT_EQ(killer.get(), 1);
  // Its own verdict, from a fresh worker (or, starved by other work, no verdict: never a crash).
  EXPECT_TRUE(verdict_or_starved(m, Outcome::hang)) << m.detail;
  EXPECT_GE(evaluator.stats().worker_starts - starts, 1);
}

TEST_F(RobustEvaluatorTest, AWorkerKilledFromOutsideEveryTimeIsTransientNotACrash) {
  CpuEvaluator evaluator(spec_, {}, options());
  std::atomic<bool> done{false};
  auto killer = std::async(std::launch::async, [&] {
    int kills = 0;
    while (!done) kills += testing::signal_descendant(kWorker, SIGTERM, 100ms);
    return kills;
  });
  const std::vector<Config> batch{mode("hang")};
  const Measurement m = evaluator.evaluate(batch).at(0);
  done = true;
  EXPECT_GE(killer.get(), 3);
  EXPECT_EQ(m.outcome, Outcome::transient) << m.detail;
  EXPECT_NE(m.detail.find("killed from outside 3 times"), std::string::npos) << m.detail;
  EXPECT_NE(m.detail.find("SIGTERM"), std::string::npos) << m.detail;
}

TEST_F(RobustEvaluatorTest, AKernelWrongOnlySometimesOrOutsideItsBuffersIsWrongInTheRounds) {
  CpuEvaluator evaluator(spec_, {}, options());
  const PairedRounds paired = evaluator.time_rounds(
      std::vector<Config>{mode("fast"), mode("flaky"), mode("write_past_end")}, 5);
  ASSERT_EQ(paired.checks.size(), 3u);
  EXPECT_EQ(paired.checks[0].outcome, Outcome::ok) << paired.checks[0].detail;
  EXPECT_EQ(paired.checks[1].outcome, Outcome::wrong_result) << paired.checks[1].detail;
  EXPECT_NE(paired.checks[1].detail.find("in round"), std::string::npos) << paired.checks[1].detail;
  EXPECT_EQ(paired.checks[2].outcome, Outcome::wrong_result) << paired.checks[2].detail;
  EXPECT_NE(paired.checks[2].detail.find("past the end of buffer 'out'"), std::string::npos)
      << paired.checks[2].detail;
}

// A copy of the faults example whose source the test edits while the evaluator works.
class EditedSourceTest : public RobustEvaluatorTest {
 protected:
  void SetUp() override {
    RobustEvaluatorTest::SetUp();
    std::filesystem::create_directories(cache_ / "spec");
    for (const char* file : {"faults.json", "faults.cpp"}) {
      std::filesystem::copy_file(examples / "cpu/faults" / file, cache_ / "spec" / file);
    }
    spec_ = load_spec(cache_ / "spec/faults.json");
  }
  void edit_source() const {
    std::ofstream(cache_ / "spec/faults.cpp", std::ios::app) << "// edited during the tune\n";
  }
  static void expect_names_the_change(const SourceChanged& error, const KernelSpec& spec) {
    const std::string what = error.what();
    EXPECT_NE(what.find("faults.cpp changed"), std::string::npos) << what;
    EXPECT_NE(what.find(spec.version), std::string::npos) << what;
    EXPECT_NE(what.find("run the tune again"), std::string::npos) << what;
  }
};

TEST_F(EditedSourceTest, AnEditBetweenBatchesStopsTheTuneBeforeTheNextCompile) {
  CpuEvaluator evaluator(spec_, {}, options());
  ASSERT_EQ(evaluator.evaluate(std::vector<Config>{mode("fast")}).at(0).outcome, Outcome::ok);
  edit_source();
  try {
    evaluator.evaluate(std::vector<Config>{mode("slow")});
    FAIL() << "measured a config of the edited source";
  } catch (const SourceChanged& error) {
    expect_names_the_change(error, spec_);
  }
  // Nothing was compiled from the new bytes under the old key.
  for (const auto& entry : std::filesystem::directory_iterator(cache_)) {
    EXPECT_NE(entry.path().extension(), ".log") << entry.path();
  }
}

// "compile_hang" keeps the compiler at work for its whole limit (6 s): the edit lands mid-compile.
TEST_F(EditedSourceTest, AnEditDuringACompileIsCaughtWhenTheCompilerEnds) {
  CpuEvaluator evaluator(spec_, {}, options());
  auto measuring = std::async(std::launch::async, [&] {
    return evaluator.evaluate(std::vector<Config>{mode("compile_hang")});
  });
  ASSERT_EQ(testing::signal_descendant("cc1plus", 0, 20s), 1);  // signal 0: only find it
  edit_source();
  try {
    measuring.get();
    FAIL() << "a compile of the edited source was kept";
  } catch (const SourceChanged& error) {
    expect_names_the_change(error, spec_);
  }
}

TEST_F(RobustEvaluatorTest, AMissingReferenceSymbolIsOneErrorUpFront) {
  spec_.check->entry = "no_such_reference";
  try {
    CpuEvaluator evaluator(spec_, {}, options());
    FAIL() << "the evaluator was built";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("faults.json"), std::string::npos) << what;
    EXPECT_NE(what.find("no symbol 'no_such_reference'"), std::string::npos) << what;
  }
}

// Issue 32: a misspelt candidate entry failed every config of a whole tune; the default config
// is compiled and probed first, and the error names the file and the entry.
TEST_F(RobustEvaluatorTest, AMissingCandidateEntryIsOneErrorUpFrontNamingIt) {
  spec_.entry = "reduce_typo";
  try {
    CpuEvaluator evaluator(spec_, {}, options());
    FAIL() << "the evaluator was built";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("faults.json: entry 'reduce_typo'"), std::string::npos) << what;
    EXPECT_NE(what.find("faults.cpp"), std::string::npos) << what;
  }
}

TEST_F(RobustEvaluatorTest, BuffersLargerThanMemoryAreOneErrorUpFront) {
  try {
    CpuEvaluator evaluator(spec_, spec_.resolve(Problem::parse("n=100000000000")), options());
    FAIL() << "the evaluator was built";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("faults.json"), std::string::npos) << what;
    EXPECT_NE(what.find("GB of memory"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace cutune
