// Hill-climbing walkers over the search view's neighbourhoods, shared by pattern search
// (pattern.cpp) and its surrogate-guided form (lfbo_pattern.cpp). A walker has a centre and a
// radius; it starts from the first unused seed, else (once the strategy has sampled a few fresh
// restart candidates) from the best measured config never used as a centre. The strategies differ
// in what they measure of a neighbourhood and in when they move.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <utility>

#include "search_state.hpp"

namespace cutune::search {

class WalkerStrategy : public QueuedStrategy {
 protected:
  struct Walker {
    Config centre;
    double cost;
    int radius = 1;
    std::optional<Config> came_from = std::nullopt;  // the centre before the last move
  };

  void on_start() override {
    initialized_ = false;
    restart_sampled_ = false;
    walker_.reset();
    centres_.clear();
  }

  // The first refill: the seeds, then up to `initial_samples` in all the seeds' neighbours (with
  // SearchContext::start_near_seeds) and random configs, those the space prefers (Space::prefer)
  // where draws find them. False once done. Near the seeds the first round is filled to the
  // `wanted` the tune asked for: its configs compile together, so the free slots of a round cost
  // nothing, and the seeds' neighbours are worth measuring.
  bool offer_initial(std::size_t initial_samples, std::size_t wanted) {
    if (initialized_) return false;
    initialized_ = true;
    if (state_.context().start_near_seeds) initial_samples = std::max(initial_samples, wanted);
    std::size_t offered = offer_seeds();
    if (state_.context().start_near_seeds && offered < initial_samples) {
      offered += offer_seed_neighbours(initial_samples - offered);
    }
    if (offered < initial_samples) offer_random(initial_samples - offered, Draws::preferred);
    restart_sampled_ = true;
    return true;
  }

  // A walker from the fastest measured seed not yet a centre (a seed's priority is a guess made
  // before anything ran; its measured time is a fact), else from the best measured config never a
  // centre. With `fresh_radius` > 0, a restart skips every config with a better measured
  // neighbour within that radius: a climb from one of those would step onto the better neighbour
  // and, more often than not, back into a basin already climbed, at the cost of a round of restart
  // candidates each time.
  bool start_walker(int fresh_radius = 0) {
    if (start_from_fastest_seed()) return true;
    if (!restart_sampled_) return false;
    for (std::size_t i : state_.ranking()) {
      if (fresh_radius > 0 && has_better_neighbour(state_.evaluated()[i], fresh_radius)) continue;
      if (try_start(state_.evaluated()[i])) {
        restart_sampled_ = false;
        return true;
      }
    }
    return false;
  }

  // The walker's best measured neighbour within its radius (with `paired`: of its
  // Space::paired_neighbours instead), if it improves on the centre by at least
  // SearchContext::min_move_gain; each legal unmeasured neighbour (normalized) goes to
  // `unmeasured`, in neighbourhood order.
  template <class Unmeasured>
  std::optional<Walker> best_neighbour(Unmeasured&& unmeasured, bool paired = false) {
    const Walker& w = *walker_;
    std::optional<Config> best;
    double best_cost = w.cost * (1.0 - state_.context().min_move_gain);
    const Space& space = state_.space();
    each_legal(paired ? space.paired_neighbours(w.centre) : space.neighbours(w.centre, w.radius),
               [&](Config normalized) {
                 if (const std::optional<double> cost = state_.cost(normalized)) {
                   if (*cost < best_cost) {
                     best_cost = *cost;
                     best = std::move(normalized);
                   }
                 } else {
                   unmeasured(std::move(normalized));
                 }
                 return false;
               });
    if (!best) return std::nullopt;
    return Walker{std::move(*best), best_cost};
  }

  // Moves the walker to `next` (a centre from now on).
  void move_to(Walker next) {
    centres_.insert(next.centre.hash());
    next.came_from = std::move(walker_->centre);
    *walker_ = std::move(next);
  }

  // Space::onward of the walker's last move, normalized: measured and better than `best` (else
  // than the centre by SearchContext::min_move_gain), it becomes `best`; unmeasured, it goes to
  // `unmeasured`.
  void onward_move(std::optional<Walker>& best, std::vector<Config>& unmeasured) const {
    const Walker& w = *walker_;
    if (!w.came_from) return;
    std::optional<Config> far = state_.space().onward(*w.came_from, w.centre);
    if (far) far = state_.normalize(std::move(*far));
    if (!far) return;
    if (const std::optional<double> cost = state_.cost(*far)) {
      const double bar = best ? best->cost : w.cost * (1.0 - state_.context().min_move_gain);
      if (*cost < bar) best = Walker{std::move(*far), *cost};
    } else if (!state_.proposed(*far)) {
      unmeasured.push_back(std::move(*far));
    }
  }

  // Widens the walker's radius, or retires it at `max_radius`.
  void widen_or_retire(int max_radius) {
    if (walker_->radius < max_radius) {
      ++walker_->radius;
    } else {
      walker_.reset();
    }
  }

  bool restart_sampled_ = false;  // restart candidates measured since the last walker started
  std::optional<Walker> walker_;

 private:
  // Calls `visit(normalized)` for each of `neighbours` that normalizes to a legal config, in
  // their order, until it returns true.
  template <class Visit>
  void each_legal(std::vector<Config> neighbours, Visit&& visit) const {
    for (Config& neighbour : neighbours) {
      std::optional<Config> normalized = state_.normalize(std::move(neighbour));
      if (normalized && visit(std::move(*normalized))) return;
    }
  }

  bool has_better_neighbour(const Config& config, int radius) const {
    const std::optional<double> cost = state_.cost(config);
    if (!cost) return false;
    bool better = false;
    each_legal(state_.space().neighbours(config, radius), [&](const Config& normalized) {
      const std::optional<double> other = state_.cost(normalized);
      better = other && *other < *cost;
      return better;
    });
    return better;
  }

  bool start_from_fastest_seed() {
    std::optional<Config> fastest;
    double fastest_cost = 0.0;
    for (const Config& seed : state_.context().seeds) {
      std::optional<Config> normalized = state_.normalize(seed);
      if (!normalized || centres_.contains(normalized->hash())) continue;
      const std::optional<double> cost = state_.cost(*normalized);
      if (cost && std::isfinite(*cost) && (!fastest || *cost < fastest_cost)) {
        fastest_cost = *cost;
        fastest = std::move(normalized);
      }
    }
    return fastest && try_start(*fastest);
  }

  bool try_start(const Config& centre) {
    const std::optional<double> cost = state_.cost(centre);
    if (!cost || !std::isfinite(*cost) || !centres_.insert(centre.hash()).second) return false;
    walker_ = Walker{centre, *cost};
    return true;
  }

  bool initialized_ = false;
  std::unordered_set<std::uint64_t> centres_;
};

}  // namespace cutune::search
