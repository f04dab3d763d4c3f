// The tuner's side of the device workers: one `cutune-cuda-worker` process per GPU, each owning
// its CUDA context. A candidate that faults kills only its worker; one that hangs is killed by
// the watchdog; either way the candidate gets a Measurement with the reason and the next request
// starts a fresh worker. A worker killed from outside (a signal no kernel raises: SIGKILL, SIGTERM,
// SIGINT, SIGHUP) or stopped by the machine's trouble (no device memory left) is no verdict: the
// request is sent again, at most twice more, and then answered as Outcome::transient.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "cutune/cuda/worker_protocol.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/measurement.hpp"

namespace cutune::cuda {

// A worker's outcome name as an Outcome; a name that no worker gives (unknown, or the compiler's
// or the watchdog's outcome) is a crash, and `detail` then says so.
Outcome outcome_named(const std::string& name, std::string& detail);

struct DeviceResult {
  Measurement measurement;
  protocol::MeasureReply reply;  // the worker's own answer (clocks, min/max); default after a kill
  double round_trip_ms = 0;      // request sent to reply read, as the tuner saw it
};

// A paired-rounds reply (a MeasureRequest or a family request with rounds > 0) written into `out`,
// whose checks and rounds already hold every config (the caller's failures kept): `sent[j]` is the
// config index of the request's j-th candidate. A result that is itself a failure (the worker
// died) becomes the check of every sent config; every check names the result's device. Times the
// worker did not take become NaN.
// Never throws for a well-formed reply.
void read_paired_rounds(const DeviceResult& result, const std::vector<std::size_t>& sent,
                        PairedRounds& out);

class DeviceWorkerPool {
 public:
  struct Options {
    std::vector<int> devices{0};  // CUDA ordinals, one worker each
    // Empty: $CUTUNE_CUDA_WORKER, else the cutune-cuda-worker built with this library.
    std::filesystem::path worker;
    std::vector<std::string> worker_args;                               // appended after --device N
    std::chrono::milliseconds start_timeout{std::chrono::seconds(60)};  // start and CUDA init
    // How long a request may go without a reply, on top of four times its timing budget.
    std::chrono::milliseconds watchdog{std::chrono::seconds(10)};
    // Workers' stderr, one file per device (its tail goes into crash reports). Empty: a folder
    // under the temp folder, removed with the pool.
    std::filesystem::path log_dir;
  };

  explicit DeviceWorkerPool(Options options);
  ~DeviceWorkerPool();  // asks the workers to quit, and kills those that do not
  DeviceWorkerPool(const DeviceWorkerPool&) = delete;
  DeviceWorkerPool& operator=(const DeviceWorkerPool&) = delete;

  std::size_t size() const;
  // Starts the slot's worker if none runs. Throws std::runtime_error when no worker can start.
  protocol::DeviceReport device(std::size_t slot);
  // Starts every slot's worker and checks that they all measure one kind of device (name, compute
  // capability, SM count, registers, shared memory, L2, driver): their results share one tuning
  // key. Returns slot 0's report. Throws std::invalid_argument naming the two ordinals and what
  // differs, std::runtime_error as device() does.
  protocol::DeviceReport identical_devices();
  // A candidate's failure (fault, hang, refused launch, wrong result) is a result, not an error;
  // either way the measurement names the slot's device (CUDA ordinal and name). Slots work in
  // parallel; calls on one slot take turns.
  DeviceResult measure(std::size_t slot, const protocol::MeasureRequest& request);
  // A request of a kernel family's own (op "family"), handed to that family's mode in the worker;
  // a worker without one refuses it (the result's launch_error says so).
  DeviceResult measure(std::size_t slot, const protocol::FamilyRequest& request);
  int workers_started() const;  // counting restarts after crashes and hangs

 private:
  struct Slot;
  // Sends the message again while the machine stops it (Outcome::transient), at most twice more.
  DeviceResult exchange(std::size_t slot, const nlohmann::json& message,
                        const protocol::Timing& timing, bool timed);
  // One attempt: the slot's worker (started when needed) asked once.
  DeviceResult exchange_once(std::size_t slot, const nlohmann::json& message,
                             const protocol::Timing& timing, bool timed);
  // The result with the slot's device (CUDA ordinal and name) as the one that measured it.
  DeviceResult tagged(std::size_t slot, DeviceResult result);
  Options options_;
  bool own_log_dir_ = false;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace cutune::cuda
