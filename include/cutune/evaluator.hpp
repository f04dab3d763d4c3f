// An evaluator turns candidates into measurements: a CPU or CUDA backend (compile, check, time),
// or a recorded space replayed from a file. It never throws for a bad candidate: every failure is
// a Measurement with its Outcome and reason.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/measurement.hpp"

namespace cutune {

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // One measurement per config, in the same order. Backends compile the batch in parallel.
  virtual std::vector<Measurement> evaluate(std::span<const Config> batch) = 0;

  // Re-times configs already known to be correct with more repetitions (the final re-benchmark
  // of the top few). The default evaluates them again.
  virtual std::vector<Measurement> retime(std::span<const Config> batch) { return evaluate(batch); }

  // Describes what is measured, for the store's key: device and toolchain.
  virtual std::string device_name() const = 0;
  virtual std::string toolchain() const = 0;
};

}  // namespace cutune
