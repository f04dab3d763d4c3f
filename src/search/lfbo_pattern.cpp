// Surrogate-guided pattern search (likelihood-free Bayesian optimisation, as LFBO and Helion's
// LFBO pattern search do). A classifier of "in the best fraction so far", refitted on every result
// (failures as not good), orders the work of a pattern search:
//   - a walker scores the unmeasured neighbours of its centre and measures only the few most
//     promising (as many as the tune's round holds, when it holds more); it moves as soon as one
//     improves on the centre, and otherwise measures the next few, widening the radius when the
//     neighbourhood is used up, until it converges;
//   - a new walker starts from the best measured config never used as a centre and with no better
//     measured config within the walker's largest radius (one that has would lead the climb back
//     into a basin already climbed), after the classifier has picked a few restart candidates out
//     of a large pool of random draws, so that restarts go where good configs are likely rather
//     than anywhere.
// With priors from other devices (cutune/transfer.hpp) the search is unchanged: their seeds are the
// tune driver's, measured outside the strategy (docs/strategies.md, "Transfer").
#include <algorithm>
#include <numeric>
#include <random>
#include <span>
#include <utility>

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

// Per candidate: how many measured configs hold its least measured knob value (0 when one of its
// values was never measured).
std::vector<std::size_t> measured_rarity(std::span<const Config> measured,
                                         std::span<const Config> candidates) {
  std::vector<std::vector<std::pair<Value, std::size_t>>> counts;  // per knob: value, times
  for (const Config& config : measured) {
    counts.resize(config.size());
    for (std::size_t k = 0; k < config.size(); ++k) {
      auto& seen = counts[k];
      auto it = std::find_if(seen.begin(), seen.end(),
                             [&](const auto& entry) { return entry.first == config.at(k); });
      if (it == seen.end()) {
        seen.emplace_back(config.at(k), 1);
      } else {
        ++it->second;
      }
    }
  }
  std::vector<std::size_t> rarity;
  rarity.reserve(candidates.size());
  for (const Config& candidate : candidates) {
    std::size_t least = measured.size();
    for (std::size_t k = 0; k < candidate.size() && k < counts.size(); ++k) {
      std::size_t times = 0;
      for (const auto& [value, n] : counts[k]) {
        if (value == candidate.at(k)) times = n;
      }
      least = std::min(least, times);
    }
    rarity.push_back(least);
  }
  return rarity;
}

class LfboPatternSearch final : public WalkerStrategy {
 public:
  explicit LfboPatternSearch(LfboSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "lfbo"; }

 private:
  void on_start() override {
    WalkerStrategy::on_start();
    model_.reset();
  }

  void refill(std::size_t wanted) override {
    if (offer_initial(settings_.initial_samples, wanted)) return;
    fit();
    while (true) {
      // Restarts only from configs no measured neighbour beats: the best config never a centre is
      // most often a neighbour of a finished climb, and a walker from it climbs back to that
      // climb's optimum in no evaluations, leaving the round to restart candidates alone
      // (docs/strategies.md, "Restarts from fresh ground").
      if (!walker_ && !start_walker(settings_.max_radius)) {
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

  void fit() {
    ClassifierOptions options;
    options.trees = settings_.trees;
    options.seed = state_.context().rng_seed + state_.results().size();
    model_.emplace(options, settings_.good_fraction);
    if (!model_->fit(state_.evaluated(), state_.results())) model_.reset();
  }

  // The `count` candidates the classifier rates best, queued. Among equal scores the candidate
  // whose rarest value was measured least goes first, then a random one: a neighbour that changes
  // only knobs no tree splits on scores exactly as its centre does, and in neighbourhood order a
  // walker would retry the space's first knobs around every new centre and never reach its last.
  std::size_t offer_best(std::vector<Config> pool, std::size_t count) {
    std::shuffle(pool.begin(), pool.end(), state_.rng());
    const std::vector<std::size_t> rarity = measured_rarity(state_.evaluated(), pool);
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rarity[a] < rarity[b]; });
    if (model_ && !pool.empty()) {
      const std::vector<double> scores = model_->score(pool);
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

  // The restart pool keeps the space's preferences while the fastest config measured keeps them:
  // on a device where the fastest config breaks one, the preference was a wrong guess there, and
  // restarts then draw from the whole view.
  std::size_t offer_restart_candidates() {
    const bool keep_preferences = state_.preferences_stand();
    std::vector<Config> pool;
    pool.reserve(settings_.random_pool);
    for (std::size_t i = 0; i < settings_.random_pool; ++i) {
      Config drawn = state_.space().draw(state_.rng());
      if (keep_preferences && !state_.preferred(drawn)) continue;
      pool.push_back(std::move(drawn));
    }
    return offer_best(fresh_candidates(state_, std::move(pool)), settings_.restart_samples);
  }

  // Queues the most promising unmeasured neighbours, at least the settings' batch and as many as
  // the tune's round wants (true), or moves to a better measured neighbour, widens, or retires
  // the walker (false).
  bool step(std::size_t wanted) {
    // A round of the tune may carry more than the settings' few: the classifier's order then
    // takes as many of the neighbourhood as the round holds, since a round's configs compile
    // together and its free slots would otherwise go unused. Such a wide round also holds the
    // space's paired moves (Space::pair_moves) and the onward config of the walker's last move
    // (Space::onward): a round carries a walker one move, and a climb along a tile side would
    // otherwise take a round per step.
    const std::size_t count = std::max(settings_.batch, wanted);
    const bool wide = count > settings_.batch;
    std::vector<Config> unmeasured, paired, onward;
    std::optional<Walker> best = best_neighbour([&](Config neighbour) {
      if (!state_.proposed(neighbour)) unmeasured.push_back(std::move(neighbour));
    });
    if (wide) {
      std::optional<Walker> pair = best_neighbour(
          [&](Config neighbour) {
            if (!state_.proposed(neighbour)) paired.push_back(std::move(neighbour));
          },
          true);
      if (pair && (!best || pair->cost < best->cost)) best = std::move(pair);
      onward_move(best, onward);  // two steps further along the last move (Space::onward)
    }
    if (best) {
      move_to(std::move(*best));
      return false;
    }
    // The onward config first, then a quarter of the round for paired moves: a group of three
    // knobs has a dozen, all measured around a centre within three rounds, while most of the
    // round still goes to single steps, which the classifier ranks from what it has seen. Slots
    // either kind leaves go to the other.
    std::size_t queued = offer_best(std::move(onward), 1);
    queued += offer_best(paired, std::max<std::size_t>(1, count / 4));
    queued += offer_best(std::move(unmeasured), count - queued);
    if (queued < count) queued += offer_best(std::move(paired), count - queued);
    if (queued > 0) return true;
    widen_or_retire(settings_.max_radius);
    return false;
  }

  LfboSettings settings_;
  std::optional<GoodConfigModel> model_;
};

}  // namespace

std::unique_ptr<Strategy> make_lfbo_pattern(Effort effort) {
  return std::make_unique<LfboPatternSearch>(settings_for(effort));
}

}  // namespace cutune::search
