// The outcome each config of faults.json must be classified as (the table atop faults.cu): the one
// expectation of the GPU test (tests/gpu) and of the fault figures (cutune-cuda-bench), so both
// judge the tuner by the same rule.
#pragma once

#include "cutune/config.hpp"
#include "cutune/measurement.hpp"

namespace cutune::examples {

inline Outcome expected_fault(const Config& config) {
  const auto mode = config.get_int("MODE");
  // The compiler's verdicts come before the launch: a config that never compiles is never launched.
  if (mode == 1) return Outcome::compile_error;
  if (mode == 6) return Outcome::compile_timeout;
  if (config.get_int("BLOCK") > 1024) return Outcome::launch_error;
  switch (mode) {
    case 2:
    case 9:
      return Outcome::crash;
    case 3:
      return Outcome::hang;
    case 4:
    case 5:
    case 7:
    case 8:
      return Outcome::wrong_result;
    default:
      return Outcome::ok;
  }
}

}  // namespace cutune::examples
