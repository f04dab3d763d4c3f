// The timing of the GEMM peer table's C++ columns (scripts/gpu/gemm-peers.sh), through the one
// timing library of the worker (backend/cuda/launch_timer.hpp: its L2 flush before each timed
// launch, events around the launch, its ramp), so that the table and a tune read the same figure
// for the same launch. What is launched differs by method: plain stream launches (the worker's),
// all the reps captured in ONE graph, or a graph of one launch replayed (graph_timer_check.cpp
// compares them on the card). Driver API only; needs a current context. Every call throws
// cuda::worker::CudaError naming the driver call that failed.
#pragma once

#include <cuda.h>

#include <functional>
#include <vector>

#include "backend/cuda/launch_timer.hpp"

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

  explicit GraphTimer(CUstream stream) : stream_(stream), timer_(stream) {}

  // Milliseconds of `reps` launches of `launch`, each after an L2 flush (none after
  // set_flush(false): back to back, as a decoding model launches), after kWarmups untimed launches
  // by the same method.
  std::vector<double> time(const CapturedLaunch& launch, int reps, Method method = Method::stream);
  // The library's ramp (LaunchTimer::ramp) by the timed method.
  void ramp(const CapturedLaunch& launch, double seconds, Method method);
  void set_flush(bool flush) { flush_each_ = flush; }

 private:
  CUstream stream_;
  cuda::worker::LaunchTimer timer_;
  bool flush_each_ = true;
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
