// The one timing of a GPU launch (launch_timer.hpp): L2 flush, events around the launch, ramp.
#include "launch_timer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "worker_host.hpp"

namespace cutune::cuda::worker {

namespace {

// Twice the L2 of the current context's device, so that the memset evicts all of it.
std::size_t twice_the_l2() {
  CUdevice device = 0;
  check(cuCtxGetDevice(&device), "cuCtxGetDevice");
  int l2 = 0;
  check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device),
        "cuDeviceGetAttribute(L2_CACHE_SIZE)");
  return 2 * static_cast<std::size_t>(std::max(l2, 1));
}

}  // namespace

LaunchTimer::LaunchTimer(CUstream stream) : stream_(stream), flush_bytes_(twice_the_l2()) {
  check(cuMemAlloc(&flush_, flush_bytes_), "cuMemAlloc");
}

LaunchTimer::~LaunchTimer() {
  for (CUevent e : events_) cuEventDestroy(e);
  cuMemFree(flush_);
}

CUevent LaunchTimer::event(std::size_t i) {
  while (events_.size() <= i) {
    CUevent created = nullptr;
    check(cuEventCreate(&created, CU_EVENT_DEFAULT), "cuEventCreate");
    events_.push_back(created);
  }
  return events_[i];
}

void LaunchTimer::reserve(int reps) {
  if (reps > 0) event(2 * static_cast<std::size_t>(reps) - 1);
}

void LaunchTimer::enqueue(const std::function<void()>& launch_once, int reps, bool flush,
                          bool in_graph) {
  reserve(reps);  // every event exists before the first record
  const auto record = [&](std::size_t i) {
    check(in_graph ? cuEventRecordWithFlags(event(i), stream_, CU_EVENT_RECORD_EXTERNAL)
                   : cuEventRecord(event(i), stream_),
          "cuEventRecord");
  };
  for (int rep = 0; rep < reps; ++rep) {
    if (flush) {
      check(cuMemsetD32Async(flush_, static_cast<unsigned>(rep), flush_bytes_ / 4, stream_),
            "cuMemsetD32Async");
    }
    record(2 * static_cast<std::size_t>(rep));
    launch_once();
    record(2 * static_cast<std::size_t>(rep) + 1);
  }
}

std::vector<double> LaunchTimer::elapsed(int reps) {
  std::vector<double> ms;
  for (int rep = 0; rep < reps; ++rep) {
    float between = 0;
    check(cuEventElapsedTime(&between, event(2 * static_cast<std::size_t>(rep)),
                             event(2 * static_cast<std::size_t>(rep) + 1)),
          "cuEventElapsedTime");
    ms.push_back(between);
  }
  return ms;
}

std::vector<double> LaunchTimer::time(const std::function<void()>& launch_once, int reps,
                                      bool flush) {
  enqueue(launch_once, reps, flush);
  check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  return elapsed(reps);
}

void LaunchTimer::ramp(const std::function<void()>& launch_once, double seconds, bool flush) {
  constexpr int kRepsPerRound = 30;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) time(launch_once, kRepsPerRound, flush);
}

void LaunchTimer::enqueue_span(const std::function<void()>& enqueue) {
  check(cuEventRecord(event(0), stream_), "cuEventRecord");
  enqueue();
  check(cuEventRecord(event(1), stream_), "cuEventRecord");
}

double LaunchTimer::span_ms() { return elapsed(1).front(); }

}  // namespace cutune::cuda::worker
