// What the CPU backend compiles for a spec's entry, and what it hands the worker to call it. The
// fixed ABI compiles the kernel's source and calls its entry; a spec with `arguments` compiles a
// call shim (cppgen/call_shim.hpp) that includes the source, written once into the cache folder
// under its content hash, and calls the shim with a pointer to each argument's value.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cutune/spec.hpp"
#include "protocol.hpp"

namespace cutune::cpu {

struct CompiledSource {
  std::filesystem::path source;  // the kernel's (or the reference's) source, as the spec says
  std::filesystem::path file;    // what the compiler is given: source, or the shim
  std::string symbol;            // what the worker calls in the object
};

// Throws std::invalid_argument (the spec file and the entry) for an entry a shim cannot call,
// std::system_error when the shim cannot be written.
CompiledSource compiled_source(const KernelSpec& spec, const std::filesystem::path& source,
                               const std::string& entry, const std::filesystem::path& cache_dir);

// The arguments of a spec with `arguments`, evaluated for the problem (empty for the fixed ABI).
std::vector<protocol::Argument> worker_arguments(const KernelSpec& spec, const Problem& problem);

}  // namespace cutune::cpu
