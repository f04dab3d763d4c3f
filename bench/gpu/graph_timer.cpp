#include "graph_timer.hpp"

#include <algorithm>
#include <chrono>

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

namespace {

// Twice the L2 of the current context's device, as the worker sizes its flush.
std::size_t flush_bytes() {
  CUdevice device = 0;
  check(cuCtxGetDevice(&device), "cuCtxGetDevice");
  int l2 = 0;
  check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device),
        "cuDeviceGetAttribute(L2_CACHE_SIZE)");
  return 2 * static_cast<std::size_t>(std::max(l2, 1));
}

}  // namespace

GraphTimer::GraphTimer(CUstream stream) : stream_(stream), flush_(flush_bytes()) {}

GraphTimer::~GraphTimer() {
  for (CUevent event : events_) cuEventDestroy(event);
}

void GraphTimer::enqueue_rep(int i, const std::function<void()>& launch_once,
                             unsigned record_flags) {
  // A different word each rep, so that no layer can skip the write as a repeat.
  if (flush_each_) {
    check(cuMemsetD32Async(flush_.pointer, static_cast<unsigned>(i), flush_.bytes / 4, stream_),
          "cuMemsetD32Async");
  }
  check(cuEventRecordWithFlags(events_[2 * i], stream_, record_flags), "cuEventRecordWithFlags");
  launch_once();
  check(cuEventRecordWithFlags(events_[2 * i + 1], stream_, record_flags),
        "cuEventRecordWithFlags");
}

std::vector<float> GraphTimer::time(const CapturedLaunch& launch, int reps, Method method) {
  for (int i = 0; i < kWarmups; ++i) {
    method == Method::stream ? launch.enqueue() : launch.replay(stream_);
  }
  // As the worker and gemm_bench do: the timed reps start on an idle stream.
  check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  while (events_.size() < 2 * static_cast<std::size_t>(reps)) {
    CUevent event = nullptr;
    check(cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
    events_.push_back(event);
  }
  if (method == Method::in_graph) {
    // Captured event records must be external to become event-record nodes of the graph. Captured
    // afresh each call: a cached graph would outlive the launch and buffers it points at.
    const CUgraphExec exec = capture(stream_, [&] {
      for (int i = 0; i < reps; ++i) {
        enqueue_rep(
            i, [&] { launch.enqueue(); }, CU_EVENT_RECORD_EXTERNAL);
      }
    });
    const CUresult launched = cuGraphLaunch(exec, stream_);
    const CUresult finished = cuStreamSynchronize(stream_);
    cuGraphExecDestroy(exec);
    check(launched, "cuGraphLaunch");
    check(finished, "cuStreamSynchronize");
  } else {
    for (int i = 0; i < reps; ++i) {
      if (method == Method::per_launch_graph) {
        enqueue_rep(
            i, [&] { launch.replay(stream_); }, CU_EVENT_RECORD_DEFAULT);
      } else {
        enqueue_rep(
            i, [&] { launch.enqueue(); }, CU_EVENT_RECORD_DEFAULT);
      }
    }
  }
  check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  std::vector<float> times(reps);
  for (int i = 0; i < reps; ++i) {
    check(cuEventElapsedTime(&times[i], events_[2 * i], events_[2 * i + 1]), "cuEventElapsedTime");
  }
  return times;
}

void GraphTimer::ramp(const CapturedLaunch& launch, double seconds, Method method) {
  constexpr int kRepsPerRound = 30;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) time(launch, kRepsPerRound, method);
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
