// The tuning side of the CUDA spec family: its evaluator (the CUDA backend's worker measures), no
// driver API here.
#include <fmt/format.h>

#include <stdexcept>

#include "spec/cuda/cuda_spec_family.hpp"

namespace cutune::families {

CudaOptions cuda_options(const CudaFamilyOptions& options) {
  CudaOptions out;
  out.cache_dir = options.cache_dir;
  out.devices = {options.device};
  return out;
}

Family cuda_tuning_family(const KernelSpec& spec, const CudaFamilyOptions& options) {
  Family f = spec_common(spec, "cuda");
  if (!spec.launch) {
    throw std::invalid_argument(
        fmt::format("{}: spec '{}' has no launch shape", spec.path.string(), spec.name));
  }
  // What constraints and seeds see before a worker reports the GPU (`cutune space`): the H200 this
  // project tunes on, by its description.
  f.device = Device::h200();
  f.make_evaluator = [&spec, options](const Problem& problem, const std::vector<int>& devices) {
    // The evaluator starts the device workers, whose report of the GPU is what constraints and
    // seeds see. Without a GPU or driver a worker does not start: std::runtime_error.
    CudaOptions measure = cuda_options(options);
    if (!devices.empty()) measure.devices = devices;
    auto evaluator = std::make_unique<CudaEvaluator>(spec, problem, measure);
    const Device device = evaluator->device();
    return FamilyEvaluator{std::move(evaluator), device};
  };
  return f;
}

Family spec_cuda(const KernelSpec& spec) { return cuda_tuning_family(spec, {}); }

}  // namespace cutune::families
