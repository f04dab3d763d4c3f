// A tuning space as the family tune() takes: name "toy", version "1", no evaluator of its own
// (the tests bring theirs). The space must outlive the family.
#pragma once

#include "cutune/family.hpp"

namespace cutune::testing {

inline Family toy_family(const TuningSpace& space) {
  Family f;
  f.name = "toy";
  f.version = "1";
  f.tuning = &space;
  return f;
}

}  // namespace cutune::testing
