// Surrogate-guided pattern search (likelihood-free Bayesian optimisation, as LFBO and Helion's
// LFBO pattern search do). A classifier of "in the best fraction so far", refitted on every result
// (failures as not good), orders the work of a pattern search:
//   - a walker scores the unmeasured neighbours of its centre and measures only the few most
//     promising (as many as the tune's round holds, when it holds more); it moves as soon as one
//     improves on the centre, and otherwise measures the next few, widening the radius when the
//     neighbourhood is used up, until it converges;
//   - a new walker starts from the best measured config never used as a centre, after the
//     classifier has picked a few restart candidates out of a large pool of random draws, so that
//     restarts go where good configs are likely rather than anywhere;
//   - with a prior from other devices (cutune/transfer.hpp), its seeds are measured in the first
//     round but neither learnt from nor climbed from until a walker meets one as a neighbour;
//     while a prior is trusted its weighted score is added to the classifier's, and each round also
//     measures a config the prior rates low (the classifier's best of such draws), so that a prior
//     that holds the search in the wrong region is contradicted by this device's own results.
#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "cutune/surrogate.hpp"
#include "strategies.hpp"
#include "walker.hpp"

namespace cutune::search {
namespace {

struct LfboSettings {
  std::size_t initial_samples;  // random configs measured before the first fit
  std::size_t batch;            // neighbours measured per step (per model fit)
  int max_radius;
  std::size_t restart_samples;  // classifier-picked random configs measured before a restart
  std::size_t random_pool;      // random draws the restart candidates are picked from
  double good_fraction;         // the classifier's positive class
  int trees;
};

LfboSettings settings_for(Effort effort) {
  return effort == Effort::quick ? LfboSettings{10, 3, 1, 3, 500, 0.15, 16}
                                 : LfboSettings{16, 4, 2, 4, 2000, 0.15, 24};
}

class LfboPatternSearch final : public WalkerStrategy {
 public:
  explicit LfboPatternSearch(LfboSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "lfbo"; }

 private:
  void on_start() override {
    WalkerStrategy::on_start();
    model_.reset();
    prior_seeds_.clear();
    for (const Config& seed : state_.context().prior_seeds) {
      hide(seed);
      prior_seeds_.insert(seed.hash());
    }
  }

  void refill(std::size_t wanted) override {
    if (offer_initial(settings_.initial_samples)) return;
    fit();
    if (prior_trusted()) offer_away_from_prior();
    while (true) {
      if (!walker_ && !start_walker()) {
        if (!restart_sampled_ && offer_restart_candidates() > 0) {
          restart_sampled_ = true;
          return;
        }
        offer_random(std::max(wanted, settings_.batch));  // nothing to climb from: sample
        return;
      }
      if (step(wanted)) return;
    }
  }

  void on_reveal(const Config& config) override { prior_seeds_.erase(config.hash()); }

  // Fitted on this device's results less the prior's seeds: those come from another device's region
  // and would label it "good" here (A100 after A4000's and MI250X's best: 0.86 of its optimum after
  // 200 evaluations instead of 0.95, docs/strategies.md). The seed counts the same results, so that
  // where the prior ranks badly the fits, and with them the search, are the cold search's.

  void fit() {
    ClassifierOptions options;
    options.trees = settings_.trees;
    std::vector<Config> configs;
    std::vector<Measurement> results;
    for (std::size_t i = 0; i < state_.evaluated().size(); ++i) {
      if (prior_seeds_.contains(state_.evaluated()[i].hash())) continue;
      configs.push_back(state_.evaluated()[i]);
      results.push_back(state_.results()[i]);
    }
    options.seed = state_.context().rng_seed + results.size();
    model_.emplace(options, settings_.good_fraction);
    if (!model_->fit(configs, results)) model_.reset();
  }

  bool prior_trusted() const {
    const auto& prior = state_.context().prior;
    return prior != nullptr && prior->trusted();
  }

  // The `count` candidates the classifier (plus the weighted prior, unless `own_only`) rates
  // best, queued; pool order without either.
  std::size_t offer_best(std::vector<Config> pool, std::size_t count, bool own_only = false) {
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), 0);
    const bool with_prior = !own_only && prior_trusted();
    if ((model_ || with_prior) && !pool.empty()) {
      std::vector<double> scores =
          model_ ? model_->score(pool) : std::vector<double>(pool.size(), 0.0);
      if (with_prior) {
        const std::vector<double> prior = state_.context().prior->score(pool);
        for (std::size_t i = 0; i < pool.size(); ++i) scores[i] += prior[i];
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    }
    std::size_t queued = 0;
    for (std::size_t i : order) {
      if (queued == count) break;
      if (offer(std::move(pool[i]))) ++queued;
    }
    return queued;
  }

  std::size_t offer_restart_candidates() {
    std::vector<Config> pool;
    pool.reserve(settings_.random_pool);
    for (std::size_t i = 0; i < settings_.random_pool; ++i) {
      pool.push_back(state_.space().draw(state_.rng()));
    }
    return offer_best(fresh_candidates(state_, std::move(pool)), settings_.restart_samples);
  }

  // One config a round away from the prior's region: of random draws, those the prior scores at
  // most its median, ranked by this device's classifier alone.
  void offer_away_from_prior() {
    std::vector<Config> pool;
    for (std::size_t i = 0; i < settings_.random_pool / 4; ++i) {
      pool.push_back(state_.space().draw(state_.rng()));
    }
    pool = fresh_candidates(state_, std::move(pool));
    if (pool.empty()) return;
    const std::vector<double> prior = state_.context().prior->score(pool);
    std::vector<double> sorted = prior;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::vector<Config> away;
    for (std::size_t i = 0; i < pool.size(); ++i)
      if (prior[i] <= median) away.push_back(std::move(pool[i]));
    offer_best(std::move(away), 1, /*own_only=*/true);
  }

  // Queues the most promising unmeasured neighbours, at least the settings' batch and as many as
  // the tune's round wants (true), or moves to a better measured neighbour, widens, or retires
  // the walker (false).
  bool step(std::size_t wanted) {
    std::vector<Config> unmeasured;
    std::optional<Walker> best = best_neighbour([&](Config neighbour) {
      if (!state_.proposed(neighbour)) unmeasured.push_back(std::move(neighbour));
    });
    if (best) {
      move_to(std::move(*best));
      return false;
    }
    // A round of the tune may carry more than the settings' few: the classifier's order then
    // takes as many of the neighbourhood as the round holds (bench-strategies at --batch 32:
    // seconds to 0.99 of the optimum 110 -> 83 on the GEMM cost model, docs/strategies.md).
    const std::size_t count = std::max(settings_.batch, wanted);
    if (offer_best(std::move(unmeasured), count) > 0) return true;
    widen_or_retire(settings_.max_radius);
    return false;
  }

  LfboSettings settings_;
  std::optional<GoodConfigModel> model_;
  std::unordered_set<std::uint64_t> prior_seeds_;
};

}  // namespace

std::unique_ptr<Strategy> make_lfbo_pattern(Effort effort) {
  return std::make_unique<LfboPatternSearch>(settings_for(effort));
}

}  // namespace cutune::search
