#include "eval/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

namespace cutune::eval {
namespace {

using namespace std::chrono_literals;

TEST(ChildProcess, CapturesOutputAndExitCode) {
  auto run = run_with_limit({"sh", "-c", "echo out; echo err >&2; exit 3"}, 5s);
  EXPECT_FALSE(run.timed_out);
  EXPECT_TRUE(run.status.exited);
  EXPECT_EQ(run.status.code, 3);
  EXPECT_EQ(run.output, "out\nerr\n");
}

TEST(ChildProcess, KillsTheWholeGroupAtTheLimit) {
  // The grandchild holds the pipe open: only a kill of the group ends the read.
  auto run = run_with_limit({"sh", "-c", "sleep 30 & sleep 30; wait"}, 300ms);
  EXPECT_TRUE(run.timed_out);
  EXPECT_FALSE(run.status.exited);
  EXPECT_EQ(run.status.code, SIGKILL);
  EXPECT_LT(run.wall_s, 5.0);
}

TEST(ChildProcess, NamesSignals) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV (Segmentation fault)");
  EXPECT_EQ((ExitStatus{false, SIGABRT}.describe()), "SIGABRT (Aborted)");
  EXPECT_EQ((ExitStatus{true, 2}.describe()), "exit code 2");
}

TEST(ChildProcess, MissingProgramThrows) {
  EXPECT_THROW(run_with_limit({"/no/such/program"}, 1s), std::system_error);
}

}  // namespace
}  // namespace cutune::eval
