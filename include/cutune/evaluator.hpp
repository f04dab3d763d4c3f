// An evaluator turns candidates into measurements: a CPU or CUDA backend (compile, check, time),
// or a recorded space replayed from a file. It never throws for a bad candidate: every failure is
// a Measurement with its Outcome and reason.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/measurement.hpp"

namespace cutune {

// One round of a paired timing: every config timed once, one after another in the same round,
// so that whatever the machine did during the round (clock, power, a neighbour's load) touched
// them all alike.
struct TimedRound {
  std::vector<double> times_ms;  // one per config, in the order asked; NaN where it failed
  double sm_clock_mhz = NAN;     // device state during the round; NaN where the backend has none
  double power_w = NAN;
  double reference_ms = NAN;  // the backend's reference (cuBLASLt for the GEMM) in the same round
};

// What time_rounds() measured. Each config is checked once before its first round; one that
// fails keeps its failure in `checks` and NaN times.
struct PairedRounds {
  std::vector<Measurement> checks;  // per config: ok, or why it could not be timed
  std::vector<TimedRound> rounds;
  int warmup_rounds = 0;     // untimed rounds run first, until the first config's time settled
  std::string steady_state;  // how the backend reached steady state, one line
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // One measurement per config, in the same order. Backends compile the batch in parallel.
  virtual std::vector<Measurement> evaluate(std::span<const Config> batch) = 0;

  // Re-times configs already known to be correct with more repetitions (the final re-benchmark
  // of the top few). The default evaluates them again.
  virtual std::vector<Measurement> retime(std::span<const Config> batch) { return evaluate(batch); }

  // Times configs already known to be correct in `rounds` interleaved rounds (the final
  // tournament), each config once per round, the order rotated from round to round, in the cache
  // state the backend promises. The first config is the one steady state is judged by (the
  // tournament passes the default). Backends with a worker override this to keep every config
  // loaded and time them in one process; this default evaluates each round as one batch, so the
  // interleaving is per evaluation and there is no warm-up. Never throws for a bad config.
  virtual PairedRounds time_rounds(std::span<const Config> configs, int rounds) {
    PairedRounds out;
    out.checks.assign(configs.size(), Measurement{});
    out.steady_state = "none: each round is one evaluation of every config";
    for (int r = 0; r < rounds; ++r) {
      std::vector<Config> order;
      for (std::size_t i = 0; i < configs.size(); ++i) {
        order.push_back(configs[(i + static_cast<std::size_t>(r)) % configs.size()]);
      }
      const std::vector<Measurement> measured = evaluate(order);
      TimedRound round;
      round.times_ms.assign(configs.size(), NAN);
      for (std::size_t i = 0; i < measured.size() && i < configs.size(); ++i) {
        const std::size_t at = (i + static_cast<std::size_t>(r)) % configs.size();
        if (measured[i].ok()) {
          round.times_ms[at] = measured[i].time_ms;
        } else if (out.checks[at].ok()) {
          out.checks[at] = measured[i];
        }
      }
      out.rounds.push_back(std::move(round));
    }
    return out;
  }

  // Describes what is measured, for the store's key: device and toolchain.
  virtual std::string device_name() const = 0;
  virtual std::string toolchain() const = 0;
};

}  // namespace cutune
