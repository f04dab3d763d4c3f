// The device worker's state (cutune-cuda-worker, worker_main.cpp): one GPU's context, its loaded
// modules and the buffers of the current argument list (worker.cpp), and a request's checks and
// timing (worker_measure.cpp).
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cutune/cuda/worker_protocol.hpp"
#include "launch_timer.hpp"
#include "sm_clock.hpp"
#include "worker_host.hpp"

namespace cutune::cuda::worker {

namespace proto = protocol;

// Buffers for one argument list and seed, kept while requests share them: pristine inputs,
// the working copies kernels see, and the reference's outputs on the host (inouts are both).
struct Workspace {
  std::string key;
  std::vector<DeviceBuffer> pristine;            // per argument; inputs and inouts
  std::vector<GuardedBuffer> working;            // per argument; every buffer, guarded
  std::vector<std::vector<std::byte>> expected;  // per argument; outputs and inouts
};

class Worker : public Host {
 public:
  explicit Worker(int ordinal);

  const proto::DeviceReport& report() const override { return report_; }
  CUdevice device() const override { return device_; }
  CUstream stream() const override { return stream_; }
  int sm_clock_mhz() const override { return clock_->mhz(); }
  double power_w() const override { return clock_->watts(); }

  CUmodule module(const std::string& cubin) override;

  proto::MeasureReply measure(const proto::MeasureRequest& request);

 private:
  // Checking and timing (worker_measure.cpp).

  // One launch from restored inputs and poisoned outputs, compared with the reference's outputs
  // when there is one. False, with the reply's outcome wrong_result, when an output differs.
  bool check_candidate(CUfunction candidate, const proto::Launch& shape,
                       const proto::MeasureRequest& request, proto::MeasureReply& reply);
  // The first guard any launch since the last poisoning wrote over, named; empty when none.
  std::string damaged_guard(const std::vector<proto::Arg>& args) const;
  // After the timed runs of a candidate that passed its check: the guards it ran between, then
  // kRechecksAfterTiming more checks. False, with the reply's outcome and detail, when either
  // fails.
  bool checked_after_timing(CUfunction candidate, const proto::Launch& shape,
                            const proto::MeasureRequest& request, proto::MeasureReply& reply);
  // Paired rounds (MeasureRequest::rounds): every candidate checked as a measure request checks
  // it, then the worker's paired rounds (run_paired_rounds) on the inputs restored once, as
  // time() runs its repetitions; the first candidate's time is the one that must settle.
  void run_rounds(const proto::MeasureRequest& request, proto::MeasureReply& reply);
  // The timed repetitions in one graph, so that the host's launch rate is not timed.
  bool run_graph(const std::function<void()>& launch_once, int reps, bool flush);
  void time(const std::function<void()>& launch_once, const proto::Timing& timing,
            proto::MeasureReply& reply) override;

  // The context, its modules and buffers (worker.cpp).

  proto::DeviceReport describe();
  // Module loading, attribute and launch failures are the candidate's; a sticky error is not.
  void refuse_unless_sticky(CUresult code, const std::string& what);
  // The entry of the launch's module, its __constant__ symbols written first (a module is shared
  // by requests whose constants may differ, so every request writes them).
  CUfunction function(const proto::Launch& launch, const proto::MeasureRequest& request);
  void write_constant(CUmodule loaded, const proto::Constant& constant);
  void launch(CUfunction entry, const proto::Launch& shape, std::vector<void*> params);
  void sync(const std::string& what);
  void prepare(const proto::MeasureRequest& request);
  // A previous candidate may have written into its inputs and inouts: every launch starts from the
  // same data.
  void restore_inputs();
  // Float outputs become NaN (all bits set), so an element the kernel never writes fails the
  // check; integer outputs 0x7f7f..., far from any value the inputs produce; scratch is zeroed.
  // Inputs and inouts are restore_inputs()' to reset.
  void reset_outputs(const std::vector<proto::Arg>& args);
  std::vector<void*> params(const std::vector<proto::Arg>& args);

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  proto::DeviceReport report_;
  std::unique_ptr<SmClock> clock_;
  std::optional<LaunchTimer> timer_;  // the one timing (launch_timer.hpp), made in the context
  Workspace workspace_;
  std::map<std::string, CUmodule> modules_;
  std::vector<std::array<std::byte, 8>> scalars_;
};

}  // namespace cutune::cuda::worker
