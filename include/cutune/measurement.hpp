// What one evaluation of one candidate produced. Shared by every backend, the store and the
// search: a failure is a result too, recorded with its reason, never dropped.
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cutune/timing_summary.hpp"

namespace cutune {

enum class Outcome {
  ok,               // correct and timed
  invalid_config,   // rejected by the space (unknown knob, illegal value, unrepairable)
  compile_error,    // the compiler refused the source
  compile_timeout,  // the compiler ran past its limit and was killed
  crash,            // the worker died (signal, CUDA fault, sticky context error)
  hang,             // the watchdog killed the worker
  wrong_result,     // output differs from the reference beyond tolerance (NaN never passes)
  launch_error,     // the launch itself was refused (resources, shared memory, cluster)
  // Cut short by the machine, not the config: the compiler or worker killed from outside, no
  // space or memory left. Retried before it is reported; never cached, and a later tune (or a
  // resumed one) measures the config again, so it is no verdict on the config.
  transient,
};

// Each outcome's name, as the store, the workers' replies, the report and the benches write it:
// the one table, so that a name read back always means the outcome that wrote it.
inline constexpr std::array<std::pair<Outcome, std::string_view>, 9> kOutcomeNames{{
    {Outcome::ok, "ok"},
    {Outcome::invalid_config, "invalid_config"},
    {Outcome::compile_error, "compile_error"},
    {Outcome::compile_timeout, "compile_timeout"},
    {Outcome::crash, "crash"},
    {Outcome::hang, "hang"},
    {Outcome::wrong_result, "wrong_result"},
    {Outcome::launch_error, "launch_error"},
    {Outcome::transient, "transient"},
}};

constexpr std::string_view to_string(Outcome outcome) {
  for (const auto& [value, name] : kOutcomeNames) {
    if (value == outcome) return name;
  }
  return "unknown";
}

// nullopt for a name that is no outcome's.
constexpr std::optional<Outcome> outcome_from_string(std::string_view name) {
  for (const auto& [value, known] : kOutcomeNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

struct Measurement {
  Outcome outcome = Outcome::ok;
  // Timing statistics over the timed repetitions (see cutune/timing_summary.hpp); NaN unless the
  // outcome is ok, and NaN when the source did not report them (an older worker, a recording
  // without per-repetition times, a store row written before they were kept).
  double time_ms = NAN;     // median
  double iqr_spread = NAN;  // (p75 - p25) / median: the robust spread, shown as "spread"
  double spread = NAN;      // (max - min) / median: the range spread, moved by any one outlier
  double min_ms = NAN;
  double max_ms = NAN;
  int repetitions = 0;
  // The timed repetitions in the order they ran (ms); empty when the source did not report them
  // (as the statistics above). Paired tournament rounds give one time per round.
  std::vector<double> times_ms = {};
  double compile_s = 0.0;      // wall time spent compiling (0 when served from the cache)
  double max_rel_error = NAN;  // against the reference, when one was checked
  std::string detail;          // why it failed: compiler log excerpt, signal, error text
  // Which device measured it: the CUDA ordinal of the GPU, or the index of the CPU worker
  // "device" (CpuOptions::devices); 0 for an evaluator of one device, -1 when unknown (a store
  // row written before devices were kept).
  int device = 0;
  // That device's name ("NVIDIA H200", "cpu worker"); empty when no device measured it (a
  // compile failure) or the evaluator does not say; the store then keeps no device (-1).
  std::string device_name = {};

  bool ok() const { return outcome == Outcome::ok; }

  // Takes the timing of a worker's reply (the CPU and CUDA protocols name their timing fields
  // alike): the median, both spreads and the extremes.
  template <class Reply>
  void take_timing(const Reply& reply) {
    time_ms = reply.time_ms;
    iqr_spread = relative_spread(reply.p25_ms, reply.p75_ms, reply.time_ms);
    spread = relative_spread(reply.min_ms, reply.max_ms, reply.time_ms);
    min_ms = reply.min_ms;
    max_ms = reply.max_ms;
    repetitions = reply.repetitions;
    times_ms = reply.times_ms;
  }
};

}  // namespace cutune
