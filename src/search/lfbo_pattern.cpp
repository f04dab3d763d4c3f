// Surrogate-guided pattern search (likelihood-free Bayesian optimisation, as LFBO and Helion's
// LFBO pattern search do): after an initial sample, each round fits a classifier of "in the best
// fraction so far" on every result (failures as not good), scores a large pool of unmeasured
// candidates (the neighbourhoods of the best configs, plus random draws so that no region is
// ruled out for good), and measures only the few it rates most likely to be good.
#include <algorithm>
#include <numeric>

#include "cutune/surrogate.hpp"
#include "strategies.hpp"

namespace cutune::search {
namespace {

struct LfboSettings {
  std::size_t initial_samples;
  std::size_t batch;         // measured per round, i.e. per model fit
  std::size_t centres;       // best configs whose neighbourhoods join the pool
  int radius;                // neighbourhood radius of each centre
  std::size_t random_pool;   // random draws in the pool
  double good_fraction;      // the classifier's positive class
  int trees;
};

LfboSettings settings_for(Effort effort) {
  return effort == Effort::quick ? LfboSettings{10, 4, 3, 1, 100, 0.2, 16}
                                 : LfboSettings{16, 4, 5, 2, 300, 0.2, 24};
}

class LfboPatternSearch final : public QueuedStrategy {
 public:
  explicit LfboPatternSearch(LfboSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "lfbo"; }

 private:
  void on_start() override { initialized_ = false; }

  void refill(std::size_t wanted) override {
    if (!initialized_) {
      initialized_ = true;
      const std::size_t seeds = offer_seeds();
      if (seeds < settings_.initial_samples) offer_random(settings_.initial_samples - seeds);
      return;
    }
    ClassifierOptions options;
    options.trees = settings_.trees;
    options.seed = state_.context().rng_seed + state_.results().size();
    GoodConfigModel model(options, settings_.good_fraction);
    if (!model.fit(state_.evaluated(), state_.results())) {
      offer_random(std::max(wanted, settings_.batch));  // no contrast yet: keep sampling
      return;
    }
    std::vector<Config> pool = fresh_candidates(state_, candidate_pool());
    if (pool.empty()) {
      offer_random(wanted);
      return;
    }
    const std::vector<double> scores = model.score(pool);
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), 0);
    const std::size_t take = std::min(settings_.batch, pool.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
                      });
    for (std::size_t i = 0; i < take; ++i) offer(std::move(pool[order[i]]));
  }

  std::vector<Config> candidate_pool() {
    std::vector<Config> pool;
    std::size_t centres = 0;
    for (std::size_t i : state_.ranking()) {
      if (centres == settings_.centres || !state_.results()[i].ok()) break;
      ++centres;
      std::vector<Config> around = state_.space().neighbours(state_.evaluated()[i], settings_.radius);
      std::move(around.begin(), around.end(), std::back_inserter(pool));
    }
    for (std::size_t i = 0; i < settings_.random_pool; ++i) {
      pool.push_back(state_.space().draw(state_.rng()));
    }
    return pool;
  }

  LfboSettings settings_;
  bool initialized_ = false;
};

}  // namespace

std::unique_ptr<Strategy> make_lfbo_pattern(Effort effort) {
  return std::make_unique<LfboPatternSearch>(settings_for(effort));
}

}  // namespace cutune::search
