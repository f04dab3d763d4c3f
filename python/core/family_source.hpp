// How the package names a family: a built-in family's name, or a kernel spec file's path.
#pragma once

#include <memory>
#include <string>

#include "cutune/family.hpp"
#include "cutune/spec.hpp"

namespace cutune::python {

// A family and, for a spec file, the spec it points into (kept alive with it).
struct FamilySource {
  std::shared_ptr<KernelSpec> spec;  // null for a built-in family
  Family family;
};

// Throws std::invalid_argument for a name that is neither a file nor a built-in family.
FamilySource family_source(const std::string& spec_or_family);

// The problem as the family's tunes and runtime key it: empty text is the family's example; a
// built-in family's example arguments are overridden one by one (so "m=128" keeps n, k, dtype);
// then resolved by the family.
Problem problem_for(const FamilySource& source, const std::string& text);

}  // namespace cutune::python
