// When a search has stopped improving (TuneOptions::patience): the rounds since the fastest
// correct config last got at least min_gain faster.
#pragma once

#include <cstddef>

#include "cutune/tune.hpp"

namespace cutune {

// TuneOptions::patience: counts the rounds since the fastest config last improved by min_gain.
class Plateau {
 public:
  Plateau(const TuneOptions& options, double fastest)
      : patience_(options.patience),
        min_evaluations_(options.min_evaluations),
        min_gain_(options.min_gain),
        reference_(fastest) {}

  void round_ended(double fastest) {
    if (fastest < reference_ * (1.0 - min_gain_)) {
      reference_ = fastest;
      flat_rounds_ = 0;
    } else {
      ++flat_rounds_;
    }
  }
  bool reached(std::size_t evaluated) const {
    return patience_ > 0 && evaluated >= min_evaluations_ && flat_rounds_ >= patience_;
  }

 private:
  std::size_t patience_;
  std::size_t min_evaluations_;
  double min_gain_;
  double reference_;
  std::size_t flat_rounds_ = 0;
};

}  // namespace cutune
