// The one timing method of the GEMM peer table (scripts/gpu/gemm-peers.sh), here for the C++
// columns; bench/gpu/peers.py does the same for the Python peers: one launch captured in a CUDA
// graph, a 256 MiB memset before each replay to flush the L2, CUDA events around the replay.
// Driver API only; needs a current context. Every call throws cuda::worker::CudaError naming the
// driver call that failed.
#pragma once

#include <cuda.h>

#include <functional>
#include <vector>

#include "backend/cuda/worker_host.hpp"

namespace cutune::bench {

// One launch (all the kernels `enqueue` puts on the stream: a split-K GEMM and its reduction),
// captured once and replayed.
class CapturedLaunch {
 public:
  CapturedLaunch(CUstream stream, const std::function<void()>& enqueue);
  CapturedLaunch(const CapturedLaunch&) = delete;
  CapturedLaunch& operator=(const CapturedLaunch&) = delete;
  ~CapturedLaunch();
  void replay(CUstream stream) const;

 private:
  CUgraphExec exec_ = nullptr;
};

class GraphTimer {
 public:
  static constexpr std::size_t kFlushBytes = std::size_t{256} << 20;  // over 4x the H200's L2
  static constexpr int kWarmups = 3;

  explicit GraphTimer(CUstream stream);
  GraphTimer(const GraphTimer&) = delete;
  GraphTimer& operator=(const GraphTimer&) = delete;
  ~GraphTimer();

  // Milliseconds of `reps` replays of `launch`, each after an L2 flush, after kWarmups replays.
  std::vector<float> time(const CapturedLaunch& launch, int reps);
  // Replays `launch` back to back for `seconds`, so that the clocks have ramped before timing.
  void ramp(const CapturedLaunch& launch, double seconds);

 private:
  CUstream stream_;
  cuda::worker::DeviceBuffer flush_;
  std::vector<CUevent> events_;
};

// The median of `values` (not empty).
double median(std::vector<double> values);

}  // namespace cutune::bench
