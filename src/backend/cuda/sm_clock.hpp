// SM clock and board power of one GPU, read through NVML, which the worker loads at run time so
// that it still runs where NVML is missing (both then read 0).
#pragma once

#include <string>

namespace cutune::cuda::worker {

class SmClock {
 public:
  // The GPU of that PCI bus id (as CUDA writes it).
  explicit SmClock(const std::string& pci_bus_id);
  int mhz() const;
  double watts() const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  int (*clock_info_)(void*, int, unsigned*) = nullptr;
  int (*power_usage_)(void*, unsigned*) = nullptr;
};

}  // namespace cutune::cuda::worker
