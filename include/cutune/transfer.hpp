// Transfer: what the same family measured elsewhere (other devices, other shapes: the store's rows,
// imported Kernel Tuner caches, recorded spaces) as a prior of a new tune. Each source of results
// is one prior: a few of its fastest configs are seeds that the tune driver adds to the first
// round, outside the strategy, so that the search is the cold one plus those seeds whatever the
// prior is worth here. After every round its weight is the rank correlation between a classifier
// fitted on its rows and the measured times of the faster half of what this device measured
// (clamped at 0), for the report. No surrogate takes the prior as a score: the weight does not tell
// a device where the prior misleads from one where it helps within a few rounds
// (docs/strategies.md, "Transfer").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/measurement.hpp"
#include "cutune/surrogate.hpp"

namespace cutune {

// Results of the same family elsewhere, as configs of the space being tuned (normalized).
struct PriorSource {
  std::string name = {};  // where they come from: a store key's problem and device, a file
  std::vector<Config> configs = {};
  std::vector<Measurement> results = {};  // same order; failures included
};

// What the report says about one prior.
struct PriorWeight {
  std::string name = {};
  std::size_t rows = 0;      // results the prior was fitted on
  std::size_t seeds = 0;     // its fastest configs handed out as seeds
  double weight = 0.0;       // after the last round
  std::size_t observed = 0;  // this device's measurements the weight was judged on
};

class TransferPrior {
 public:
  // Throws std::invalid_argument naming the source when configs and results differ in length or a
  // config belongs to another space than the first source's.
  TransferPrior(std::vector<PriorSource> sources, std::uint64_t seed);

  // The first `count` of each source's seed list, interleaved (every source's first, then every
  // source's second, ...), without repeats. A source's list is its fastest `per_source` correct
  // configs, its fastest first and then in turn the one that differs from its nearest predecessor
  // in the most knobs (the faster of equals): another device's fastest few often share one region,
  // and the config that carries over to this device may be its sixth (MI250X's on A4000).
  std::vector<Config> seeds(std::size_t count, std::size_t per_source);
  std::vector<Config> seeds(std::size_t per_source) { return seeds(per_source, per_source); }
  // This device's measurements so far (every one, each told once); the weights follow them.
  void observe(std::span<const Config> configs, std::span<const Measurement> results);
  std::vector<PriorWeight> weights() const;

 private:
  struct Source {
    PriorWeight report = {};
    std::vector<Config> configs = {};
    std::vector<Measurement> results = {};
    std::shared_ptr<GoodConfigModel> model = {};  // null: a single class, nothing to learn
  };
  // Indices into the source's configs: its seed list (see seeds()).
  static std::vector<std::size_t> seed_order(const Source& source, std::size_t per_source);
  void reweigh();

  std::vector<Source> sources_;
  std::vector<Config> seen_;
  std::vector<Measurement> seen_results_;
};

// Spearman's rank correlation of two equally long series (average ranks for ties); 0 when either
// is constant or they hold fewer than 3 values.
double rank_correlation(std::span<const double> a, std::span<const double> b);

}  // namespace cutune
