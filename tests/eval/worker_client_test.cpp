// A shell loop stands in for a worker here: it speaks the same line protocol, and crashes or
// hangs on request. The real CPU worker is exercised in tests/backend/cpu.
#include "eval/worker_client.hpp"

#include <gtest/gtest.h>

namespace cutune::eval {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> echo_worker{"sh", "-c",
                                           "while read -r line; do case \"$line\" in "
                                           "*crash*) echo dying >&2; kill -SEGV $$ ;; "
                                           "*hang*) sleep 60 ;; "
                                           "*garble*) echo 'not json' ;; "
                                           "*) echo \"$line\" ;; esac; done"};

TEST(WorkerClient, EchoesRepliesAndRestartsAfterACrash) {
  WorkerClient worker(echo_worker);
  auto first = worker.request({{"op", "echo"}, {"n", 1}}, 5s);
  ASSERT_EQ(first.status, WorkerReply::Status::ok) << first.detail;
  EXPECT_EQ(first.body["n"], 1);
  EXPECT_EQ(worker.starts(), 1);

  auto crash = worker.request({{"op", "crash"}}, 5s);
  EXPECT_EQ(crash.status, WorkerReply::Status::died);
  EXPECT_NE(crash.detail.find("SIGSEGV"), std::string::npos) << crash.detail;
  EXPECT_NE(crash.detail.find("dying"), std::string::npos) << crash.detail;
  EXPECT_FALSE(worker.running());

  auto after = worker.request({{"op", "echo"}, {"n", 2}}, 5s);
  ASSERT_EQ(after.status, WorkerReply::Status::ok) << after.detail;
  EXPECT_EQ(after.body["n"], 2);
  EXPECT_EQ(worker.starts(), 2);
}

TEST(WorkerClient, WatchdogKillsAHungWorker) {
  WorkerClient worker(echo_worker);
  auto start = Clock::now();
  auto hang = worker.request({{"op", "hang"}}, 300ms);
  EXPECT_EQ(hang.status, WorkerReply::Status::timeout);
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_FALSE(worker.running());
  EXPECT_EQ(worker.request({{"op", "echo"}}, 5s).status, WorkerReply::Status::ok);
}

TEST(WorkerClient, AReplyThatIsNotJsonEndsTheWorker) {
  WorkerClient worker(echo_worker);
  auto reply = worker.request({{"op", "garble"}}, 5s);
  EXPECT_EQ(reply.status, WorkerReply::Status::died);
  EXPECT_NE(reply.detail.find("not json"), std::string::npos) << reply.detail;
}

}  // namespace
}  // namespace cutune::eval
