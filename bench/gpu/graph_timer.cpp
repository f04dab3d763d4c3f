#include "graph_timer.hpp"

#include <algorithm>

#include "backend/cuda/worker_host.hpp"
#include "cutune/timing_summary.hpp"

namespace cutune::bench {

using cuda::worker::check;

namespace {

// Captures what `enqueue` puts on `stream` into an executable graph.
CUgraphExec capture(CUstream stream, const std::function<void()>& enqueue) {
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
  CUgraphExec exec = nullptr;
  const CUresult instantiated = cuGraphInstantiate(&exec, graph, 0);
  cuGraphDestroy(graph);
  check(instantiated, "cuGraphInstantiate");
  return exec;
}

}  // namespace

CapturedLaunch::CapturedLaunch(CUstream stream, std::function<void()> enqueue)
    : enqueue_(std::move(enqueue)), exec_(capture(stream, enqueue_)) {}

CapturedLaunch::~CapturedLaunch() { cuGraphExecDestroy(exec_); }

void CapturedLaunch::replay(CUstream stream) const {
  check(cuGraphLaunch(exec_, stream), "cuGraphLaunch");
}

std::vector<double> GraphTimer::time(const CapturedLaunch& launch, int reps, Method method) {
  const auto enqueue = [&] { launch.enqueue(); };
  const auto replay = [&] { launch.replay(stream_); };
  for (int i = 0; i < kWarmups; ++i) method == Method::stream ? enqueue() : replay();
  // As the worker does: the timed reps start on an idle stream.
  check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  if (method != Method::in_graph) {
    return timer_.time(
        method == Method::stream ? std::function<void()>(enqueue) : std::function<void()>(replay),
        reps, flush_each_);
  }
  // Captured afresh each call: a cached graph would outlive the launch and buffers it points at.
  timer_.reserve(reps);
  const CUgraphExec exec =
      capture(stream_, [&] { timer_.enqueue(enqueue, reps, flush_each_, /*in_graph=*/true); });
  const CUresult launched = cuGraphLaunch(exec, stream_);
  const CUresult finished = cuStreamSynchronize(stream_);
  cuGraphExecDestroy(exec);
  check(launched, "cuGraphLaunch");
  check(finished, "cuStreamSynchronize");
  return timer_.elapsed(reps);
}

void GraphTimer::ramp(const CapturedLaunch& launch, double seconds, Method method) {
  if (method == Method::stream) {
    timer_.ramp([&] { launch.enqueue(); }, seconds, flush_each_);
  } else {
    timer_.ramp([&] { launch.replay(stream_); }, seconds, flush_each_);
  }
}

DeviceStream open_device_stream() {
  check(cuInit(0), "cuInit");
  DeviceStream opened;
  CUcontext context = nullptr;
  check(cuDeviceGet(&opened.device, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&context, opened.device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  check(cuStreamCreate(&opened.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return opened;
}

// The workers' own quantile, so that the bench and the tuner read a median the same way.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, 0.5);
}

}  // namespace cutune::bench
