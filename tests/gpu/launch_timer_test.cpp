// The one timing of a GPU launch (src/backend/cuda/launch_timer.hpp) on a real GPU: its flush
// covers twice the L2, and it times every repetition, on a stream (flushed or back to back) and
// inside a captured graph (whose events must be external records).
#include "launch_timer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "worker_host.hpp"

namespace cutune::cuda::worker {
namespace {

struct Context {
  CUdevice device = 0;
  CUstream stream = nullptr;
  Context() {
    check(cuInit(0), "cuInit");
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    CUcontext context = nullptr;
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
};

TEST(LaunchTimer, FlushesTwiceTheL2AndTimesEveryRepetition) {
  const Context gpu;
  int l2 = 0;
  check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, gpu.device), "L2 size");
  LaunchTimer timer(gpu.stream);
  EXPECT_EQ(timer.flush_bytes(), 2 * static_cast<std::size_t>(l2));

  // The timed "launch": a memset of 64 MiB, long enough that its events are apart.
  DeviceBuffer target(64u << 20);
  int launches = 0;
  const auto launch = [&] {
    ++launches;
    check(cuMemsetD32Async(target.pointer, 7, target.bytes / 4, gpu.stream), "cuMemsetD32Async");
  };
  for (const bool flush : {true, false}) {
    launches = 0;
    const std::vector<double> ms = timer.time(launch, 5, flush);
    ASSERT_EQ(ms.size(), 5u);
    EXPECT_EQ(launches, 5);
    for (double t : ms) EXPECT_GT(t, 0.0);
  }
}

TEST(LaunchTimer, TimesTheRepetitionsOfACapturedGraph) {
  const Context gpu;
  LaunchTimer timer(gpu.stream);
  DeviceBuffer target(64u << 20);
  const auto launch = [&] {
    check(cuMemsetD32Async(target.pointer, 3, target.bytes / 4, gpu.stream), "cuMemsetD32Async");
  };
  timer.reserve(4);
  check(cuStreamBeginCapture(gpu.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "begin capture");
  timer.enqueue(launch, 4, /*flush=*/true, /*in_graph=*/true);
  CUgraph graph = nullptr;
  check(cuStreamEndCapture(gpu.stream, &graph), "end capture");
  CUgraphExec exec = nullptr;
  check(cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  check(cuGraphLaunch(exec, gpu.stream), "cuGraphLaunch");
  check(cuStreamSynchronize(gpu.stream), "cuStreamSynchronize");
  const std::vector<double> ms = timer.elapsed(4);
  ASSERT_EQ(ms.size(), 4u);
  for (double t : ms) EXPECT_GT(t, 0.0);
  cuGraphExecDestroy(exec);
  cuGraphDestroy(graph);
  std::uint32_t word = 0;
  check(cuMemcpyDtoH(&word, target.pointer, sizeof word), "cuMemcpyDtoH");
  EXPECT_EQ(word, 3u);  // the captured launches ran
}

}  // namespace
}  // namespace cutune::cuda::worker
