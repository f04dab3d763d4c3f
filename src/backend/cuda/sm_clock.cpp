#include "sm_clock.hpp"

#include <dlfcn.h>

namespace cutune::cuda::worker {

SmClock::SmClock(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return;
  auto init = reinterpret_cast<int (*)()>(dlsym(library_, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(
      dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  clock_info_ =
      reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(library_, "nvmlDeviceGetClockInfo"));
  power_usage_ =
      reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(library_, "nvmlDeviceGetPowerUsage"));
  if (!init || !by_bus || !clock_info_ || init() != 0) return;
  if (by_bus(pci_bus_id.c_str(), &device_) != 0) {
    // NVML may want the 8-digit PCI domain that CUDA writes with 4.
    if (by_bus(("0000" + pci_bus_id).c_str(), &device_) != 0) device_ = nullptr;
  }
}

int SmClock::mhz() const {
  constexpr int kNvmlClockSm = 1;
  unsigned value = 0;
  if (device_ == nullptr || clock_info_(device_, kNvmlClockSm, &value) != 0) return 0;
  return static_cast<int>(value);
}

double SmClock::watts() const {
  unsigned milliwatts = 0;
  if (device_ == nullptr || power_usage_ == nullptr || power_usage_(device_, &milliwatts) != 0) {
    return 0;
  }
  return milliwatts / 1000.0;
}

}  // namespace cutune::cuda::worker
