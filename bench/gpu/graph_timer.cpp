#include "graph_timer.hpp"

#include <algorithm>
#include <chrono>

#include "cutune/timing_summary.hpp"

namespace cutune::bench {

using cuda::worker::check;

CapturedLaunch::CapturedLaunch(CUstream stream, const std::function<void()>& enqueue) {
  check(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  CUgraph graph = nullptr;
  try {
    enqueue();
  } catch (...) {
    cuStreamEndCapture(stream, &graph);  // leave the stream usable for the next candidate
    if (graph != nullptr) cuGraphDestroy(graph);
    throw;
  }
  check(cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
  const CUresult instantiated = cuGraphInstantiate(&exec_, graph, 0);
  cuGraphDestroy(graph);
  check(instantiated, "cuGraphInstantiate");
}

CapturedLaunch::~CapturedLaunch() { cuGraphExecDestroy(exec_); }

void CapturedLaunch::replay(CUstream stream) const {
  check(cuGraphLaunch(exec_, stream), "cuGraphLaunch");
}

GraphTimer::GraphTimer(CUstream stream) : stream_(stream), flush_(kFlushBytes) {}

GraphTimer::~GraphTimer() {
  for (CUevent event : events_) cuEventDestroy(event);
}

std::vector<float> GraphTimer::time(const CapturedLaunch& launch, int reps) {
  for (int i = 0; i < kWarmups; ++i) launch.replay(stream_);
  while (events_.size() < 2 * static_cast<std::size_t>(reps)) {
    CUevent event = nullptr;
    check(cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
    events_.push_back(event);
  }
  for (int i = 0; i < reps; ++i) {
    // A different byte each time, so that no layer can skip the write as a repeat.
    check(cuMemsetD8Async(flush_.pointer, static_cast<unsigned char>(i), kFlushBytes, stream_),
          "cuMemsetD8Async");
    check(cuEventRecord(events_[2 * i], stream_), "cuEventRecord");
    launch.replay(stream_);
    check(cuEventRecord(events_[2 * i + 1], stream_), "cuEventRecord");
  }
  check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  std::vector<float> times(reps);
  for (int i = 0; i < reps; ++i) {
    check(cuEventElapsedTime(&times[i], events_[2 * i], events_[2 * i + 1]), "cuEventElapsedTime");
  }
  return times;
}

void GraphTimer::ramp(const CapturedLaunch& launch, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 20; ++i) launch.replay(stream_);
    check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  }
}

// The workers' own quantile, so that the bench and the tuner read a median the same way.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, 0.5);
}

}  // namespace cutune::bench
