// The table of this build's families, generated from src/families/CMakeLists.txt (table.cpp.in);
// family.cpp answers cutune/family.hpp's questions from it.
#pragma once

#include <span>
#include <string_view>

#include "cutune/family.hpp"

namespace cutune::families {

struct Builtin {
  std::string_view name;
  Family (*make)();
};

struct SpecBackend {
  std::string_view backend;  // KernelSpec::backend
  Family (*make)(const KernelSpec&);
};

std::span<const Builtin> builtin_table();
std::span<const SpecBackend> spec_backend_table();

}  // namespace cutune::families
