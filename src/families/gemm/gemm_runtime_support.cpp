#include "gemm/gemm_runtime_support.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "backend/cuda/cuda_context.hpp"
#include "cutune/cuda/worker_protocol.hpp"

namespace cutune::runtime {

void check_driver(CUresult code, const char* who, const char* what) {
  if (code != CUDA_SUCCESS) {
    throw std::runtime_error(fmt::format("{}: {}: {}", who, what, error_text(code)));
  }
}

GemmDevice current_gemm_device(const char* who) {
  GemmDevice info;
  const CUresult current = cuCtxGetCurrent(&info.context);
  if (current != CUDA_SUCCESS || info.context == nullptr) {
    throw std::runtime_error(fmt::format(
        "{}: no CUDA context is current on this thread{}; make one current "
        "(cuDevicePrimaryCtxRetain, cuCtxSetCurrent) before creating the family",
        who,
        current != CUDA_SUCCESS ? fmt::format(" (cuCtxGetCurrent: {})", error_text(current)) : ""));
  }
  check_driver(cuCtxGetDevice(&info.device), who, "cuCtxGetDevice");
  char name[256] = {};
  check_driver(cuDeviceGetName(name, sizeof name, info.device), who, "cuDeviceGetName");
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check_driver(cuDeviceGetAttribute(&value, which, info.device), who, "cuDeviceGetAttribute");
    return value;
  };
  info.description.name = name;
  info.description.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.description.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.description.smem_per_block =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.description.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  check_driver(cuDriverGetVersion(&info.driver_version), who, "cuDriverGetVersion");
  info.key = cuda::protocol::device_key(info.description.name, info.description.cc_major,
                                        info.description.cc_minor);
  return info;
}

Family runtime_gemm_family(Family tuning, const GemmDevice& device, const std::string& compiler,
                           decltype(Family::load) load) {
  tuning.device = device.description;
  tuning.device_key = device.key;
  tuning.toolchain = cuda::protocol::toolchain_key(compiler, device.driver_version);
  tuning.load = std::move(load);
  return tuning;
}

GemmEvaluatorOptions runtime_tune_options(const GemmFamilyOptions& options,
                                          const GemmDevice& device) {
  GemmEvaluatorOptions tune = options.tune;
  tune.compile = options.compile;
  tune.devices = options.tune_devices;
  if (tune.devices.empty()) tune.devices = {static_cast<int>(device.device)};
  return tune;
}

}  // namespace cutune::runtime
