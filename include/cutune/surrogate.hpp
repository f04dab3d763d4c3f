// The surrogate of the search: a classifier of "is this config among the best measured so far",
// fitted on the space's feature encoding (likelihood-free Bayesian optimisation, as LFBO and
// Helion's pattern search do). The model is XGBoost's, through its C API, as a random forest or
// as boosted trees. Failed candidates are kept as "not good" examples: a region that fails to
// compile or launch is a region to avoid, not a blank.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/measurement.hpp"

namespace cutune {

struct ClassifierOptions {
  enum class Mode { forest, boosted };
  Mode mode = Mode::forest;
  int trees = 24;  // parallel trees (forest) or boosting rounds (boosted)
  int max_depth = 6;
  double row_fraction = 0.8;      // rows each tree sees (sampled without replacement)
  double column_fraction = 0.8;   // features each split considers
  double learning_rate = 0.3;     // boosted mode only; a forest takes one full step
  double min_child_weight = 0.1;  // small: the search fits on tens of rows, not thousands
  std::uint64_t seed = 0;         // the fit is deterministic for a given seed
};

// A binary classifier over dense feature rows. Single-threaded by design: the search fits many
// small models and runs several tunes at once.
class Classifier {
 public:
  explicit Classifier(ClassifierOptions options = {});
  Classifier(Classifier&&) noexcept;
  Classifier& operator=(Classifier&&) noexcept;
  ~Classifier();

  // rows: row-major, labels.size() rows of feature_count columns; labels are 0 or 1.
  // Throws std::invalid_argument on a shape mismatch or a label other than 0/1, and
  // std::runtime_error carrying XGBoost's message if the library fails.
  void fit(std::span<const double> rows, std::size_t feature_count, std::span<const int> labels);
  // P(label == 1) per row. Throws std::logic_error before fit().
  std::vector<double> predict(std::span<const double> rows) const;
  bool fitted() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Labels for "in the best fraction so far": the fastest ceil(fraction * ok) correct results are 1
// (at least one, when any result is correct); slower and failed ones are 0.
std::vector<int> best_fraction_labels(std::span<const Measurement> results, double fraction);

// The classifier fitted on configs encoded by their space (Space::features).
class GoodConfigModel {
 public:
  explicit GoodConfigModel(ClassifierOptions options = {}, double good_fraction = 0.2);

  // Fits on every result so far. Returns false (and stays unfitted) while the labels hold a single
  // class: with no contrast there is nothing to learn.
  bool fit(std::span<const Config> configs, std::span<const Measurement> results);
  // P(good) per config; all configs must belong to the space the model was fitted on.
  std::vector<double> score(std::span<const Config> configs) const;
  bool fitted() const { return classifier_.fitted(); }

 private:
  ClassifierOptions options_;
  double good_fraction_;
  Classifier classifier_;
  std::size_t feature_count_ = 0;
};

}  // namespace cutune
