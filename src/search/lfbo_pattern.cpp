// Surrogate-guided pattern search (likelihood-free Bayesian optimisation, as LFBO and Helion's
// LFBO pattern search do): after an initial sample, each round fits a classifier of "in the best
// fraction so far" on every result (failures as not good) and uses it to choose what to measure:
// most of the round from the unmeasured neighbours of the best configs (the pattern search), the
// rest from a large pool of random draws (so that no region is ruled out for good). Only the
// candidates the classifier rates most likely to be good are measured.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "cutune/surrogate.hpp"
#include "strategies.hpp"

namespace cutune::search {
namespace {

struct LfboSettings {
  std::size_t initial_samples;
  std::size_t local_batch;   // neighbours measured per round (per model fit)
  std::size_t global_batch;  // random-pool candidates measured per round
  std::size_t centres;       // best configs whose neighbourhoods form the local pool
  int radius;                // neighbourhood radius of each centre
  std::size_t random_pool;   // random draws scored per round
  double good_fraction;      // the classifier's positive class
  int trees;
};

LfboSettings settings_for(Effort effort) {
  LfboSettings s = effort == Effort::quick ? LfboSettings{10, 3, 1, 3, 1, 100, 0.2, 16}
                                 : LfboSettings{16, 3, 1, 5, 2, 300, 0.2, 24};
  if (const char* e = std::getenv("XLFBO")) {  // EXPERIMENT
    std::sscanf(e, "%zu,%zu,%zu,%zu,%d,%zu,%lf,%d", &s.initial_samples, &s.local_batch, &s.global_batch, &s.centres, &s.radius, &s.random_pool, &s.good_fraction, &s.trees);
  }
  return s;
}

// Indices of the `count` best-scored candidates, best first (ties in pool order).
std::vector<std::size_t> top(const std::vector<double>& scores, std::size_t count) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
                    });
  order.resize(count);
  return order;
}

class LfboPatternSearch final : public QueuedStrategy {
 public:
  explicit LfboPatternSearch(LfboSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "lfbo"; }

 private:
  void on_start() override { initialized_ = false; }

  void refill(std::size_t wanted) override {
    const std::size_t round = settings_.local_batch + settings_.global_batch;
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
      offer_random(std::max(wanted, round));  // no contrast yet: keep sampling
      return;
    }
    std::vector<Config> local = fresh_candidates(state_, neighbourhoods());
    std::vector<Config> global = fresh_candidates(state_, random_draws());
    // An exhausted neighbourhood hands its share of the round to the global pool.
    const std::size_t from_local = std::min(local.size(), settings_.local_batch);
    std::size_t queued = offer_best(model, local, from_local);
    queued += offer_best(model, global, round - queued);
    if (queued == 0) offer_random(wanted);
  }

  std::size_t offer_best(const GoodConfigModel& model, std::vector<Config>& pool,
                         std::size_t count) {
    if (pool.empty() || count == 0) return 0;
    std::size_t queued = 0;
    for (std::size_t i : top(model.score(pool), count)) {
      if (offer(std::move(pool[i]))) ++queued;
    }
    return queued;
  }

  std::vector<Config> neighbourhoods() {
    std::vector<Config> pool;
    std::size_t centres = 0;
    for (std::size_t i : state_.ranking()) {
      if (centres == settings_.centres || !state_.results()[i].ok()) break;
      ++centres;
      std::vector<Config> around = state_.space().neighbours(state_.evaluated()[i], settings_.radius);
      std::move(around.begin(), around.end(), std::back_inserter(pool));
    }
    return pool;
  }

  std::vector<Config> random_draws() {
    std::vector<Config> pool;
    pool.reserve(settings_.random_pool);
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
