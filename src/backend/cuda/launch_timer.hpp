// The one timing of a GPU launch: the device worker's (every family's measurements and paired
// rounds), the GEMM benchmarks' (bench/gpu) and the Python GEMM module's (python/gemm), so that a
// tune, a bench table and Python read the same figure for the same launch.
//
//  - Flush: before each timed launch the L2 is overwritten by a 32-bit memset (cuMemsetD32Async)
//    of twice the device's L2, with a new word each repetition so that no layer can skip it as a
//    repeat; without it (flush = false) launches run back to back, as a decoding model calls its
//    skinny GEMMs.
//  - Events: one CUDA event on each side of the launch alone; the flush is not timed.
//  - Ramp: before a figure is taken, the launch is timed by this same method for `seconds` and the
//    times dropped, so that the clocks have ramped and the card is in the state the timed launches
//    keep it in (back-to-back launches of a DRAM-bound kernel leave it in another).
//
// Driver API only (the worker links nothing else) and C++17 (nvcc reads it in gemm_bench.cu); a
// context must be current on the calling thread. Every call throws CudaError (worker_host.hpp)
// naming the driver call that failed.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace cutune::cuda::worker {

class LaunchTimer {
 public:
  // Allocates the flush buffer: twice the L2 of the current context's device.
  explicit LaunchTimer(CUstream stream);
  LaunchTimer(const LaunchTimer&) = delete;
  LaunchTimer& operator=(const LaunchTimer&) = delete;
  ~LaunchTimer();

  CUstream stream() const { return stream_; }
  std::size_t flush_bytes() const { return flush_bytes_; }

  // Creates the events of `reps` repetitions now (before a stream capture starts, say).
  void reserve(int reps);
  // Enqueues `reps` timed repetitions of `launch_once` (which enqueues one run on stream()): the
  // flush when `flush`, an event, the launch, an event. Inside a stream capture (`in_graph`) the
  // events are recorded as external nodes, which a graph needs to time them.
  void enqueue(const std::function<void()>& launch_once, int reps, bool flush,
               bool in_graph = false);
  // Milliseconds of each of the `reps` repetitions enqueued last, once the stream has run them.
  std::vector<double> elapsed(int reps);
  // enqueue, wait for the stream, elapsed.
  std::vector<double> time(const std::function<void()>& launch_once, int reps, bool flush = true);
  // The ramp: time() in rounds of 30 until `seconds` have passed, the times dropped.
  void ramp(const std::function<void()>& launch_once, double seconds, bool flush = true);
  // Two events around whatever `enqueue` puts on the stream, no flush (a first estimate of a
  // launch's time, in a warm L2); span_ms() reads them once the stream has run it.
  void enqueue_span(const std::function<void()>& enqueue);
  double span_ms();

 private:
  CUevent event(std::size_t i);

  CUstream stream_;
  std::size_t flush_bytes_;
  CUdeviceptr flush_ = 0;
  std::vector<CUevent> events_;
};

}  // namespace cutune::cuda::worker
