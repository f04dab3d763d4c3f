// When a search has stopped improving (TuneOptions::patience): the rounds since the fastest
// correct config last got at least min_gain faster.
#pragma once

#include <cstddef>

#include "cutune/tune.hpp"

namespace cutune {

// TuneOptions::patience: counts the rounds since the fastest config last improved by min_gain. A
// round that made it at least kSteepGain faster earns one more flat round: a search still
// descending steeply often crosses a flat stretch before its next gain, while one near its answer
// (a default already close to the best) gains little and ends on time.
class Plateau {
 public:
  static constexpr double kSteepGain = 0.05;

  // `fastest` after the first round, `baseline` the default config's time (infinite when it
  // failed): a first round that made the default kSteepGain faster (a wide space, whose seeds lie
  // far from its default) has earned its flat round as any steep round does.
  Plateau(const TuneOptions& options, double baseline, double fastest)
      : patience_(options.patience),
        min_evaluations_(options.min_evaluations),
        min_gain_(options.min_gain),
        reference_(fastest),
        flat_rounds_(fastest < baseline * (1.0 - kSteepGain) ? -1 : 0) {}

  void round_ended(double fastest) {
    if (fastest < reference_ * (1.0 - min_gain_)) {
      flat_rounds_ = fastest < reference_ * (1.0 - kSteepGain) ? -1 : 0;
      reference_ = fastest;
    } else {
      ++flat_rounds_;
    }
  }
  bool reached(std::size_t evaluated) const {
    return patience_ > 0 && evaluated >= min_evaluations_ &&
           flat_rounds_ >= static_cast<long>(patience_);
  }

 private:
  std::size_t patience_;
  std::size_t min_evaluations_;
  double min_gain_;
  double reference_;
  long flat_rounds_;  // -1 after a steep round: the earned round comes first
};

}  // namespace cutune
