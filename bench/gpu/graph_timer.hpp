// The timing of the GEMM peer table's C++ columns (scripts/gpu/gemm-peers.sh): the device
// worker's method, so that the table and a tune read the same figure for the same launch: `reps`
// plain stream launches, each after a memset of twice the L2 (cuMemsetD32Async, the worker's flush)
// and between two CUDA events. Two other methods stay for graph_timer_check.cpp, which compares
// them on the card: all the reps captured in ONE graph, and a graph of one launch replayed between
// events (the old method). Driver API only; needs a current context. Every call throws
// cuda::worker::CudaError naming the driver call that failed.
#pragma once

#include <cuda.h>

#include <functional>
#include <vector>

#include "backend/cuda/worker_host.hpp"

namespace cutune::bench {

// One launch (all the kernels `enqueue` puts on the stream: a split-K GEMM and its reduction),
// captured once for replays, and kept to be enqueued plainly or captured again into a timed graph.
class CapturedLaunch {
 public:
  CapturedLaunch(CUstream stream, std::function<void()> enqueue);
  CapturedLaunch(const CapturedLaunch&) = delete;
  CapturedLaunch& operator=(const CapturedLaunch&) = delete;
  ~CapturedLaunch();
  void replay(CUstream stream) const;
  void enqueue() const { enqueue_(); }

 private:
  std::function<void()> enqueue_;
  CUgraphExec exec_ = nullptr;
};

class GraphTimer {
 public:
  static constexpr int kWarmups = 3;

  // stream: events around plain launches, as the tuner's worker times. in_graph: every rep in one
  // graph. per_launch_graph: the graph of one launch replayed between events (the old method).
  enum class Method { stream, in_graph, per_launch_graph };

  // The flush buffer is twice the L2 of the context's device.
  explicit GraphTimer(CUstream stream);
  GraphTimer(const GraphTimer&) = delete;
  GraphTimer& operator=(const GraphTimer&) = delete;
  ~GraphTimer();

  // Milliseconds of `reps` launches of `launch`, each after an L2 flush (none after
  // set_flush(false): back to back, as a decoding model launches), after kWarmups untimed launches
  // by the same method.
  std::vector<float> time(const CapturedLaunch& launch, int reps, Method method = Method::stream);
  // Times `launch` for `seconds` by the timed method (an L2 flush before each launch) and drops
  // the times, so that the clocks have ramped before timing and the card is in the state the
  // timed rounds keep it in. Back-to-back replays of a DRAM-bound launch left it in another: the
  // next rounds read cutune's 128x8192x8192 kernel at 0.88 of cuBLASLt, 1.05 without that ramp.
  void ramp(const CapturedLaunch& launch, double seconds, Method method);
  void set_flush(bool flush) { flush_each_ = flush; }

 private:
  // Enqueues rep i's flush, start event, launch and end event (`launch_once` enqueues it).
  void enqueue_rep(int i, const std::function<void()>& launch_once, unsigned record_flags);

  CUstream stream_;
  cuda::worker::DeviceBuffer flush_;
  bool flush_each_ = true;
  std::vector<CUevent> events_;
};

// Device 0 with its primary context current (cuBLASLt's too) and a non-blocking stream on it.
struct DeviceStream {
  CUdevice device = 0;
  CUstream stream = nullptr;
};
DeviceStream open_device_stream();

// The median of `values` (not empty).
double median(std::vector<double> values);

}  // namespace cutune::bench
