// The family of a CUDA kernel spec, shared by its two targets: the tuning family (no driver API,
// so that the tool starts without a GPU) and the runtime's loader (cuda_spec_family()).
#pragma once

#include "cutune/cuda.hpp"
#include "cutune/runtime.hpp"
#include "spec/spec_family.hpp"

namespace cutune::families {

CudaOptions cuda_options(const CudaFamilyOptions& options);

// The family without its loader; throws std::invalid_argument for a spec of another backend or
// one without a launch shape.
Family cuda_tuning_family(const KernelSpec& spec, const CudaFamilyOptions& options);

}  // namespace cutune::families
