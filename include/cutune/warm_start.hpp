// Warm start and transfer priors: how a tune starts from what the store already knows (the winners
// of the nearest tuned shapes of a family, and its results on other devices and shapes). The tune
// side's set-up (src/priors), used by `cutune tune`, the Python package, the runtime's tunes and
// the benchmarks.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/family.hpp"
#include "cutune/problem.hpp"
#include "cutune/store.hpp"
#include "cutune/transfer.hpp"
#include "cutune/tune.hpp"

namespace cutune {

// How many nearest tuned shapes' winners a tune starts from unless told otherwise.
inline constexpr std::size_t kWarmStartNeighbours = 4;

// One tuned shape near a problem, and its winner.
struct NearestWinner {
  Config config;
  Problem problem;      // the tuned shape
  double distance = 0;  // Euclidean, in log2 of the numeric problem arguments
  double time_ms = 0;
};

// The winners of the k nearest tuned shapes of one family on one device, nearest first, one per
// distinct config; `problem` itself is never one of them. A shape counts only when it has the same
// argument names as `problem` and equal non-numeric arguments (dtype...). Stored configs the space
// rejects (an older family version) are skipped. Throws StoreError when the store cannot be read.
std::vector<NearestWinner> nearest_winners(Store& store, std::string_view family,
                                           std::string_view device, const Problem& problem,
                                           const Space& space, std::size_t k);

// The one warm-start set-up of a tune of `family`'s `problem` measured on `device` (the store
// key's): the winners of the `neighbours` nearest tuned shapes in `store` (nearest_winners),
// appended to options.warm_start, and returned. Used by `cutune tune`, the runtime's tunes and
// compare_warm_start. Throws what nearest_winners throws.
std::vector<NearestWinner> add_warm_start(TuneOptions& options, Store& store, const Family& family,
                                          const Problem& problem, std::string_view device,
                                          std::size_t neighbours);

// The one transfer set-up of a tune under `key`: every other key of `family` in `store` (other
// devices, other shapes) with at least 8 correct results becomes a prior in options.priors, its
// latest results as configs of the family's space (rows of another space version skipped).
// Returns what was added (weights 0: the tune weighs them). Used by `cutune tune`. Throws
// StoreError when the store cannot be read.
std::vector<PriorWeight> add_priors(TuneOptions& options, Store& store, const Family& family,
                                    const TuningKey& key);

// A tune from the nearest winners against a cold tune of the same shape, same options otherwise.
struct WarmStartComparison {
  TuneReport cold;
  TuneReport warm;
  std::vector<NearestWinner> neighbours;
  // The level both runs are measured to: the worse of their best times, or, given a tolerance,
  // within it of the best time known for the shape.
  double target_ms = 0;
  // Evaluations (1-based) and tune seconds each run took to first measure target_ms or better;
  // a run that never did: its evaluation count and seconds, and reached false.
  std::size_t cold_evaluations = 0;
  std::size_t warm_evaluations = 0;
  double cold_seconds = 0;
  double warm_seconds = 0;
  bool cold_reached = true;
  bool warm_reached = true;
};

// How compare_warm_start decides the level both runs race to.
struct WarmStartTarget {
  // < 0: the worse of the two runs' bests. Else (1 + tolerance) times the best time known for the
  // shape: the smaller of own_best_ms (0: none) and both runs' best search times (0.02: within 2%
  // of the shape's best).
  double tolerance = -1;
  double own_best_ms = 0;
  // Record the warm run into `store`, as a tune of the shape would (it then resumes from nothing:
  // call it only for a shape the store has never tuned).
  bool record_warm = false;
};

// Tunes `family`'s `problem` with `evaluator` (the family's bundle, as tune() takes it), cold
// first, then warm; the cold run neither reads nor writes `store`'s results for the problem's key,
// which is used to find neighbours (and to record the warm run when target.record_warm). Throws
// std::invalid_argument when no tuned neighbour exists.
WarmStartComparison compare_warm_start(const Family& family, const Problem& problem,
                                       FamilyEvaluator& evaluator, Store& store,
                                       const TuneOptions& options, std::size_t neighbours,
                                       const WarmStartTarget& target = {});

}  // namespace cutune
