// Readers of the spec's sections that load.cpp hands the document to once the sections they
// refer to are read. Internal to cutune_spec.
#pragma once

#include "reader.hpp"

namespace cutune::spec {

// `arguments` (the kernel's parameters in its own order and types) and `constants` (CUDA
// __constant__ symbols), after `buffers` and `scalars`: an argument or a constant names a buffer.
void read_arguments(const Reader& r, const Node& root, const Scope& problem_scope,
                    KernelSpec& spec);

// `launch` (and a reference's `check.launch`): grid (explicit expressions, or Kernel Tuner's
// problem_size and grid_div), block, cluster and shared memory.
LaunchSpec read_launch(const Reader& r, const Node& node, const Scope& scope);

}  // namespace cutune::spec
