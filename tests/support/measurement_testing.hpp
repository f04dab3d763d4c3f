// Measurements as the tests of what reads them build them (the benchmark's metrics, the
// surrogate, transfer priors, the rank table): a success of a given time, or a failure.
#pragma once

#include "cutune/measurement.hpp"

namespace cutune::testing {

inline Measurement ok(double ms) {
  Measurement m;
  m.time_ms = ms;
  return m;
}

inline Measurement failed(Outcome outcome = Outcome::compile_error) {
  Measurement m;
  m.outcome = outcome;
  return m;
}

}  // namespace cutune::testing
