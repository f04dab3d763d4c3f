// The one timing method of the GEMM peer table (scripts/gpu/gemm-peers.sh), here for the C++
// columns: `reps` launches, each after a 256 MiB memset that flushes the L2 and between two CUDA
// events, all captured in ONE graph that is replayed once, so that the events see the kernels and
// nothing of the graph launch (a graph of one launch, replayed between events, measured about
// 10 us more per launch than events around plain stream launches at S3; bench/gpu/
// graph_timer_check.cpp measures the methods side by side). Driver API only; needs a current
// context. Every call throws cuda::worker::CudaError naming the driver call that failed.
#pragma once

#include <cuda.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "backend/cuda/worker_host.hpp"

namespace cutune::bench {

// One launch (all the kernels `enqueue` puts on the stream: a split-K GEMM and its reduction),
// captured once for untimed replays, and kept to be captured again into timed graphs.
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
  static constexpr std::size_t kFlushBytes = std::size_t{256} << 20;  // over 4x the H200's L2
  static constexpr int kWarmups = 3;

  // in_graph: the method above. per_launch_graph: the graph of one launch replayed between events
  // (the old method). stream: events around plain launches, as the tuner's worker times.
  enum class Method { in_graph, per_launch_graph, stream };

  explicit GraphTimer(CUstream stream);
  GraphTimer(const GraphTimer&) = delete;
  GraphTimer& operator=(const GraphTimer&) = delete;
  ~GraphTimer();

  // Milliseconds of `reps` launches of `launch`, each after an L2 flush, after kWarmups replays.
  std::vector<float> time(const CapturedLaunch& launch, int reps, Method method = Method::in_graph);
  // Replays `launch` back to back for `seconds`, so that the clocks have ramped before timing.
  void ramp(const CapturedLaunch& launch, double seconds);

 private:
  // Enqueues rep i's flush, start event, launch and end event (`launch_once` enqueues it).
  void enqueue_rep(int i, const std::function<void()>& launch_once, unsigned record_flags);

  CUstream stream_;
  cuda::worker::DeviceBuffer flush_;
  std::vector<CUevent> events_;
  std::map<std::pair<const CapturedLaunch*, int>, CUgraphExec> timed_;  // (launch, reps)
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
