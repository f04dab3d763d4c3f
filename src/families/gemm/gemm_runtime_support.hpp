// What the GEMM runtime families (cutune/gemm.hpp: the bf16/fp16 `gemm` and the fp8 `gemm_fp8`)
// share: the device of the CUDA context current when a family is made, read as the CUDA
// backend's worker reads it so that the store keys of the runtime's loads and of `cutune tune`
// agree; the runtime's parts added to a tuning family; and a kernel's cache of prepared launches
// (the TMA descriptors of a launch depend on the buffers' addresses).
#pragma once

#include <cuda.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "cutune/family.hpp"
#include "cutune/gemm.hpp"

namespace cutune::runtime {

struct GemmDevice {
  CUcontext context = nullptr;
  CUdevice device = 0;
  Device description;
  std::string key;  // TuningKey::device: "NVIDIA H200 (sm_90)"
  int driver_version = 0;
};

// Throws std::runtime_error "`who`: what: CUDA_ERROR_..." unless `code` is CUDA_SUCCESS.
void check_driver(CUresult code, const char* who, const char* what);

// The device of the context current on this thread. Throws std::runtime_error naming `who`
// (the family's function) when none is current or the driver cannot describe it.
GemmDevice current_gemm_device(const char* who);

// `tuning` (a GEMM family's record) as a runtime family on `device`: its device, the store key's
// device and toolchain (`compiler` and the driver, as the worker writes them) and `load`.
Family runtime_gemm_family(Family tuning, const GemmDevice& device, const std::string& compiler,
                           decltype(Family::load) load);

// The evaluator options of a runtime family's tunes: options.tune with options.compile (one disk
// cache for loads and tunes) on options.tune_devices, else on the family's device.
GemmEvaluatorOptions runtime_tune_options(const GemmFamilyOptions& options,
                                          const GemmDevice& device);

// A kernel's prepared launches, keyed by the device pointers they were bound to, most recently
// used first; the least recently used falls off beyond GemmRuntimeKernel::kCachedLaunches.
template <typename Launch, std::size_t Pointers>
class PreparedLaunches {
 public:
  using Key = std::array<CUdeviceptr, Pointers>;

  // The launch bound to `key`: the cached one, else make()'s (std::shared_ptr<const Launch>),
  // cached. make() runs under the cache's lock. Thread-safe.
  template <typename Make>
  std::shared_ptr<const Launch> get(const Key& key, Make&& make) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < cached_; ++i) {
      if (entries_[i].key == key) {
        // Most recently used first: a program that alternates between a few operand sets finds
        // each near the front.
        if (i != 0) std::rotate(entries_.begin(), entries_.begin() + i, entries_.begin() + i + 1);
        return entries_[0].launch;
      }
    }
    std::shared_ptr<const Launch> launch = make();
    prepared_.fetch_add(1, std::memory_order_relaxed);
    if (cached_ < entries_.size()) ++cached_;
    std::rotate(entries_.begin(), entries_.begin() + cached_ - 1, entries_.begin() + cached_);
    entries_[0] = Entry{key, launch};
    return launch;
  }

  // How many launches were prepared so far.
  std::size_t prepared() const { return prepared_.load(std::memory_order_relaxed); }

  // Drops every cached launch (a caller whose launches free device memory makes their context
  // current first).
  void clear() {
    std::lock_guard lock(mutex_);
    entries_ = {};
    cached_ = 0;
  }

 private:
  struct Entry {
    Key key{};
    std::shared_ptr<const Launch> launch;
  };
  std::mutex mutex_;
  std::array<Entry, GemmRuntimeKernel::kCachedLaunches> entries_{};
  std::size_t cached_ = 0;
  std::atomic<std::size_t> prepared_{0};
};

}  // namespace cutune::runtime
