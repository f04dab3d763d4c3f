// The tuner's side of the device workers, driven against a stand-in worker process (this
// machine has no GPU; tests/gpu runs the real worker): every failure becomes a classified
// Measurement, a dead or hung worker is replaced, and measurements taken before are unaffected.
#include "cutune/cuda/device_worker_pool.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "test_support.hpp"

namespace cutune::cuda {
namespace {

using testing::TempDir;

protocol::MeasureRequest request_for(const std::string& behaviour) {
  protocol::MeasureRequest request;
  request.candidate.kernel = behaviour;
  request.candidate.cubin = "/nonexistent.cubin";
  request.timing.budget_ms = 10;
  return request;
}

DeviceWorkerPool::Options stand_in(const TempDir& logs, std::vector<int> devices = {0}) {
  DeviceWorkerPool::Options options;
  options.devices = std::move(devices);
  options.worker = CUTUNE_FAKE_WORKER;
  options.watchdog = std::chrono::milliseconds(400);
  options.start_timeout = std::chrono::seconds(10);
  options.log_dir = logs.path();
  return options;
}

std::string worker_pid(const DeviceResult& result) { return result.reply.detail; }

TEST(DeviceWorkerPool, ReportsTheDeviceAndAGoodMeasurement) {
  TempDir logs("pool-ok");
  DeviceWorkerPool pool(stand_in(logs));
  EXPECT_EQ(pool.device(0).name, "stand-in");
  auto result = pool.measure(0, request_for("ok"));
  EXPECT_EQ(result.measurement.outcome, Outcome::ok);
  EXPECT_DOUBLE_EQ(result.measurement.time_ms, 1.0);
  EXPECT_NEAR(result.measurement.spread, 0.2, 1e-12);       // (1.1 - 0.9) / 1.0
  EXPECT_NEAR(result.measurement.iqr_spread, 0.05, 1e-12);  // (1.03 - 0.98) / 1.0
  EXPECT_DOUBLE_EQ(result.measurement.min_ms, 0.9);
  EXPECT_DOUBLE_EQ(result.measurement.max_ms, 1.1);
  EXPECT_EQ(result.measurement.repetitions, 10);
  EXPECT_EQ(pool.workers_started(), 1);
}

TEST(DeviceWorkerPool, OnlyIdenticalDevicesShareATune) {
  TempDir logs("pool-identical");
  DeviceWorkerPool alike(stand_in(logs, {0, 1, 2}));
  EXPECT_EQ(alike.identical_devices().sm_count, 132);
  DeviceWorkerPool mixed(stand_in(logs, {0, 7}));
  try {
    mixed.identical_devices();
    FAIL() << "a pool of two kinds of device was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("devices 0 and 7 differ"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("114 SMs"), std::string::npos) << error.what();
  }
}

TEST(DeviceWorkerPool, ClassifiesEveryFailureAndReplacesDeadWorkers) {
  TempDir logs("pool-faults");
  DeviceWorkerPool pool(stand_in(logs));
  auto first = pool.measure(0, request_for("ok"));

  auto wrong = pool.measure(0, request_for("wrong"));
  EXPECT_EQ(wrong.measurement.outcome, Outcome::wrong_result);
  EXPECT_DOUBLE_EQ(wrong.measurement.max_rel_error, 0.5);
  EXPECT_TRUE(std::isnan(wrong.measurement.time_ms));
  EXPECT_EQ(pool.measure(0, request_for("refused")).measurement.outcome, Outcome::launch_error);
  EXPECT_EQ(worker_pid(pool.measure(0, request_for("ok"))), worker_pid(first))
      << "failures that leave the context usable keep the worker";

  auto sticky = pool.measure(0, request_for("sticky"));
  EXPECT_EQ(sticky.measurement.outcome, Outcome::crash);
  EXPECT_NE(sticky.measurement.detail.find("ILLEGAL_ADDRESS"), std::string::npos);

  auto segv = pool.measure(0, request_for("segv"));
  EXPECT_EQ(segv.measurement.outcome, Outcome::crash);
  EXPECT_NE(segv.measurement.detail.find("SIGSEGV"), std::string::npos) << segv.measurement.detail;
  EXPECT_NE(segv.measurement.detail.find("about to fault"), std::string::npos)
      << "the worker's last words are attached";

  auto start = std::chrono::steady_clock::now();
  auto hang = pool.measure(0, request_for("hang"));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(hang.measurement.outcome, Outcome::hang);
  EXPECT_GE(waited, 0.4);  // watchdog 400 ms + 4 x 10 ms budget
  EXPECT_LT(waited, 3.0);

  auto garbage = pool.measure(0, request_for("garbage"));
  EXPECT_EQ(garbage.measurement.outcome, Outcome::crash);
  EXPECT_NE(garbage.measurement.detail.find("protocol"), std::string::npos);

  auto after = pool.measure(0, request_for("ok"));
  EXPECT_EQ(after.measurement.outcome, Outcome::ok) << "a fresh worker serves the next candidate";
  EXPECT_NE(worker_pid(after), worker_pid(first));
  EXPECT_EQ(pool.workers_started(), 5);  // the first, then after sticky, segv, hang, garbage
}

// Issue 17: a worker killed from outside (SIGKILL: the OOM killer, a user) or stopped by the
// machine's trouble (no device memory) is no verdict on the candidate: asked again, and only
// after three tries reported, as transient.
TEST(DeviceWorkerPool, AWorkerKilledFromOutsideIsAskedAgainAndNeverTheCandidatesCrash) {
  TempDir logs("pool-killed");
  DeviceWorkerPool pool(stand_in(logs));
  protocol::MeasureRequest once = request_for("killed_once");
  once.candidate.cubin = (logs.path() / "killed-once.marker").string();
  auto survived = pool.measure(0, once);
  EXPECT_EQ(survived.measurement.outcome, Outcome::ok) << survived.measurement.detail;
  EXPECT_DOUBLE_EQ(survived.measurement.time_ms, 2.0);
  EXPECT_EQ(pool.workers_started(), 2);

  protocol::MeasureRequest always = request_for("killed");
  always.candidate.cubin = (logs.path() / "killed.marker").string();
  auto killed = pool.measure(0, always);
  EXPECT_EQ(killed.measurement.outcome, Outcome::transient);
  EXPECT_NE(killed.measurement.detail.find("SIGKILL"), std::string::npos)
      << killed.measurement.detail;
  EXPECT_NE(killed.measurement.detail.find("3 times"), std::string::npos)
      << killed.measurement.detail;
  EXPECT_EQ(pool.workers_started(), 4);  // the one that served killed_once, and two more

  auto no_memory = pool.measure(0, request_for("no_memory"));
  EXPECT_EQ(no_memory.measurement.outcome, Outcome::transient);
  EXPECT_NE(no_memory.measurement.detail.find("OUT_OF_MEMORY"), std::string::npos);
  EXPECT_EQ(pool.measure(0, request_for("ok")).measurement.outcome, Outcome::ok);
  EXPECT_EQ(pool.workers_started(), 8);  // three no_memory workers, then a fresh one
}

TEST(DeviceWorkerPool, SlotsRunTheirOwnWorkers) {
  TempDir logs("pool-slots");
  DeviceWorkerPool pool(stand_in(logs, {0, 1}));
  ASSERT_EQ(pool.size(), 2u);
  auto a = pool.measure(0, request_for("ok"));
  auto b = pool.measure(1, request_for("ok"));
  EXPECT_NE(worker_pid(a), worker_pid(b));
  EXPECT_EQ(pool.measure(1, request_for("segv")).measurement.outcome, Outcome::crash);
  EXPECT_EQ(worker_pid(pool.measure(0, request_for("ok"))), worker_pid(a))
      << "a crash on one device leaves the other's worker alone";
}

TEST(DeviceWorkerPool, AWorkerThatCannotStartIsAnErrorNotACandidateFailure) {
  TempDir logs("pool-start");
  auto options = stand_in(logs);
  options.worker_args = {"--fail-start"};
  DeviceWorkerPool pool(options);
  try {
    pool.device(0);
    FAIL() << "expected the start to fail";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("no device here"), std::string::npos) << error.what();
  }
}

// A family's own request travels inside the generic envelope, unread by the pool; a worker
// without that family's mode refuses it, and the refusal is the candidate's launch_error.
TEST(DeviceWorkerPool, FamilyRequestsReachTheFamilysModeUnread) {
  TempDir logs("pool-family");
  DeviceWorkerPool pool(stand_in(logs));
  protocol::FamilyRequest request;
  request.family = "echo";
  request.request = {{"id", 7}, {"shape", {128, 256}}, {"note", "a \"quoted\" value"}};
  request.timing.budget_ms = 10;
  const DeviceResult echoed = pool.measure(0, request);
  ASSERT_TRUE(echoed.measurement.ok()) << echoed.measurement.detail;
  EXPECT_EQ(echoed.reply.id, 7u);
  EXPECT_EQ(nlohmann::json::parse(echoed.reply.detail), request.request);

  request.family = "gemv";
  const DeviceResult refused = pool.measure(0, request);
  EXPECT_EQ(refused.measurement.outcome, Outcome::launch_error);
  EXPECT_NE(refused.measurement.detail.find("no mode of family 'gemv'"), std::string::npos)
      << refused.measurement.detail;
}

}  // namespace
}  // namespace cutune::cuda
