// A tuning space as the family tune() takes: name "toy", version "1", no evaluator of its own
// (the tests bring theirs, in the bundle tune() takes through TestEvaluator). The space must
// outlive the family.
#pragma once

#include <memory>
#include <utility>

#include "cutune/family.hpp"

namespace cutune::testing {

inline Family toy_family(const TuningSpace& space) {
  Family f;
  f.name = "toy";
  f.version = "1";
  f.tuning = &space;
  return f;
}

// A test's own evaluator of type E in the bundle tune() takes (measuring on the host CPU), still
// reachable as an E (`->`) for what the test checks of it afterwards.
template <class E>
struct TestEvaluator {
  template <class... Args>
  explicit TestEvaluator(Args&&... args)
      : bundle{std::make_unique<E>(std::forward<Args>(args)...), Device::host_cpu()},
        self(static_cast<E&>(*bundle.evaluator)) {}

  E* operator->() { return &self; }

  FamilyEvaluator bundle;
  E& self;
};

}  // namespace cutune::testing
