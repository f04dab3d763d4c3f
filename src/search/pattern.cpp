// Pattern search: hill climbing over the search view's neighbourhoods. A walker evaluates every
// unmeasured neighbour of its centre within the current radius and moves to the best one if it
// improves; with no improvement it widens the radius, and at the widest radius it has converged.
// Walkers start from every eligible seed, then from the best measured config not yet used as a
// centre, after a few fresh random samples have widened the choice.
#include <unordered_set>

#include "strategies.hpp"

namespace cutune::search {
namespace {

struct PatternSettings {
  std::size_t initial_samples;  // random configs measured before the first walker
  std::size_t restart_samples;  // random configs measured before each later walker
  int max_radius;
};

PatternSettings settings_for(Effort effort) {
  return effort == Effort::quick ? PatternSettings{8, 4, 1} : PatternSettings{16, 8, 2};
}

class PatternSearch final : public QueuedStrategy {
 public:
  explicit PatternSearch(PatternSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "pattern"; }

 private:
  struct Walker {
    Config centre;
    double cost;
    int radius = 1;
  };

  void on_start() override {
    initialized_ = false;
    restart_sampled_ = false;
    walker_.reset();
    centres_.clear();
  }

  void refill(std::size_t wanted) override {
    if (!initialized_) {
      initialized_ = true;
      const std::size_t seeds = offer_seeds();
      if (seeds < settings_.initial_samples) offer_random(settings_.initial_samples - seeds);
      restart_sampled_ = true;
      return;
    }
    while (true) {
      if (!walker_ && !start_walker()) {
        if (!restart_sampled_ && offer_random(settings_.restart_samples) > 0) {
          restart_sampled_ = true;
          return;
        }
        offer_random(wanted);  // nothing left to climb from: sample until the view runs dry
        return;
      }
      if (explore_neighbourhood()) return;
    }
  }

  // A walker from the first unused seed, else from the best measured config never a centre.
  bool start_walker() {
    for (const Config& seed : state_.context().seeds) {
      const std::optional<Config> normalized = state_.normalize(seed);
      if (normalized && try_start(*normalized)) return true;
    }
    if (!restart_sampled_) return false;
    for (std::size_t i : state_.ranking()) {
      if (try_start(state_.evaluated()[i])) {
        restart_sampled_ = false;
        return true;
      }
    }
    return false;
  }

  bool try_start(const Config& centre) {
    const std::optional<double> cost = state_.cost(centre);
    if (!cost || !std::isfinite(*cost) || !centres_.insert(centre.hash()).second) return false;
    walker_ = Walker{centre, *cost};
    return true;
  }

  // Queues the unmeasured neighbours (true), or moves, widens or retires the walker (false).
  bool explore_neighbourhood() {
    Walker& w = *walker_;
    std::optional<Config> best;
    double best_cost = w.cost;
    bool queued = false;
    for (Config& neighbour : state_.space().neighbours(w.centre, w.radius)) {
      std::optional<Config> normalized = state_.normalize(std::move(neighbour));
      if (!normalized) continue;
      if (const std::optional<double> cost = state_.cost(*normalized)) {
        if (*cost < best_cost) {
          best_cost = *cost;
          best = std::move(normalized);
        }
      } else if (offer(std::move(*normalized))) {
        queued = true;
      }
    }
    if (queued) return true;
    if (best) {
      centres_.insert(best->hash());
      w = Walker{std::move(*best), best_cost};
    } else if (w.radius < settings_.max_radius) {
      ++w.radius;
    } else {
      walker_.reset();
    }
    return false;
  }

  PatternSettings settings_;
  bool initialized_ = false;
  bool restart_sampled_ = false;
  std::optional<Walker> walker_;
  std::unordered_set<std::uint64_t> centres_;
};

}  // namespace

std::unique_ptr<Strategy> make_pattern(Effort effort) {
  return std::make_unique<PatternSearch>(settings_for(effort));
}

}  // namespace cutune::search
