// The families of kernel spec files (src/spec), one per backend. The generated table of this
// build (src/families/CMakeLists.txt) picks one by a spec's backend: spec_family() in
// cutune/family.hpp.
#pragma once

#include <string_view>

#include "cutune/family.hpp"
#include "cutune/spec.hpp"

namespace cutune::families {

// What every backend's family of `spec` shares: name, version, space, resolution, the spec's own
// problem as the example. Throws std::invalid_argument when the spec is of another backend.
// The spec must outlive the family.
Family spec_common(const KernelSpec& spec, std::string_view backend);

// Tuning families (no loader: they need no CUDA context), with each backend's default options.
Family spec_cpu(const KernelSpec& spec);   // src/families/spec/cpu_family.cpp
Family spec_cuda(const KernelSpec& spec);  // src/families/spec/cuda/cuda_family.cpp

}  // namespace cutune::families
