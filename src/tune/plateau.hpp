// When a search has stopped improving (TuneOptions::patience): the rounds since the fastest
// correct config last got at least min_gain faster.
#pragma once

#include <cstddef>

#include "cutune/tune.hpp"

namespace cutune {

// TuneOptions::patience: counts the rounds since the fastest config last improved by min_gain. A
// round that made it at least kSteepGain faster earns one more flat round: a search still
// descending steeply often crosses a flat stretch before its next gain, while one near its answer
// (a default already close to the best) gains little and ends on time. A 3 % round still shows a
// descent: ending at the first flat round after one can leave the search a few percent short of
// its best. A flat round counts once it holds half a batch of configs, short rounds added
// together: a round that holds only what a strategy's last refill left over (a single config)
// has not searched a round's worth.
class Plateau {
 public:
  static constexpr double kSteepGain = 0.03;

  // `fastest` after the first round, `baseline` the default config's time (infinite when it
  // failed): a first round that made the default kSteepGain faster (a wide space, whose seeds lie
  // far from its default) has earned its flat round as any steep round does.
  Plateau(const TuneOptions& options, std::size_t batch, double baseline, double fastest)
      : patience_(options.patience),
        round_configs_((batch + 1) / 2),
        min_evaluations_(options.min_evaluations),
        min_gain_(options.min_gain),
        reference_(fastest),
        flat_rounds_(fastest < baseline * (1.0 - kSteepGain) ? -1 : 0) {}

  // `configs`: how many configs the round asked for.
  void round_ended(double fastest, std::size_t configs) {
    if (fastest < reference_ * (1.0 - min_gain_)) {
      flat_rounds_ = fastest < reference_ * (1.0 - kSteepGain) ? -1 : 0;
      reference_ = fastest;
      flat_configs_ = 0;
      return;
    }
    flat_configs_ += configs;
    if (flat_configs_ >= round_configs_) {
      ++flat_rounds_;
      flat_configs_ = 0;
    }
  }
  bool reached(std::size_t evaluated) const {
    return patience_ > 0 && evaluated >= min_evaluations_ &&
           flat_rounds_ >= static_cast<long>(patience_);
  }

 private:
  std::size_t patience_;
  std::size_t round_configs_;     // the configs of a flat round that counts: half a batch
  std::size_t flat_configs_ = 0;  // in flat rounds too short to count yet
  std::size_t min_evaluations_;
  double min_gain_;
  double reference_;
  long flat_rounds_;  // -1 after a steep round: the earned round comes first
};

}  // namespace cutune
