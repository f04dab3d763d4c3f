// Pattern search: hill climbing over the search view's neighbourhoods. A walker evaluates every
// unmeasured neighbour of its centre within the current radius and moves to the best one if it
// improves; with no improvement it widens the radius, and at the widest radius it has converged.
// Walkers start from every eligible seed, then from the best measured config not yet used as a
// centre, after a few fresh random samples have widened the choice.
#include "strategies.hpp"
#include "walker.hpp"

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

class PatternSearch final : public WalkerStrategy {
 public:
  explicit PatternSearch(PatternSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "pattern"; }

 private:
  void refill(std::size_t wanted) override {
    if (offer_initial(settings_.initial_samples, wanted)) return;
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

  // Queues the unmeasured neighbours (true), or moves, widens or retires the walker (false).
  bool explore_neighbourhood() {
    bool queued = false;
    std::optional<Walker> best = best_neighbour([&](Config neighbour) {
      if (offer(std::move(neighbour))) queued = true;
    });
    if (queued) return true;
    if (best) {
      move_to(std::move(*best));
    } else {
      widen_or_retire(settings_.max_radius);
    }
    return false;
  }

  PatternSettings settings_;
};

}  // namespace

std::unique_ptr<Strategy> make_pattern(Effort effort) {
  return std::make_unique<PatternSearch>(settings_for(effort));
}

}  // namespace cutune::search
