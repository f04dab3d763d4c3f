// What every strategy keeps about one tune: the normalizer front door (normalize, drop, dedup),
// the results so far, and the random generator. Strategies build on QueuedStrategy, which turns
// "offer candidates when the queue is empty" into the ask/tell protocol.
#pragma once

#include <deque>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/strategy.hpp"

namespace cutune::search {

// Lower is better; a failure is worse than any time (it still counts, as a place to avoid).
inline double cost_of(const Measurement& m) {
  return m.ok() ? m.time_ms : std::numeric_limits<double>::infinity();
}

class SearchState {
 public:
  void start(const SearchContext& context);

  const SearchContext& context() const { return context_; }
  const Space& space() const { return context_.space->space; }
  Rng& rng() { return rng_; }

  // The candidate as the normalizer leaves it, or nothing when it stays illegal.
  std::optional<Config> normalize(Config candidate) const;
  // Normalizes and, if the result was never proposed in this tune, marks it proposed and returns
  // it. Nothing for an illegal candidate or a duplicate.
  std::optional<Config> admit(Config candidate);
  bool proposed(const Config& normalized) const;
  // Every preference of the space holds for the config (Space::preferred; one that throws does
  // not hold).
  bool preferred(const Config& normalized) const;
  // The space has preferences and the fastest correct config measured so far keeps them: the
  // device has not contradicted them yet.
  bool preferences_stand() const;

  void record(std::span<const Config> configs, std::span<const Measurement> results);
  // The cost of a config already measured in this tune.
  std::optional<double> cost(const Config& normalized) const;
  const std::vector<Config>& evaluated() const { return evaluated_; }
  const std::vector<Measurement>& results() const { return results_; }
  // Indices into evaluated(), cheapest first (failures last, ties in arrival order).
  std::vector<std::size_t> ranking() const;

  // Search-view genes of a config; a seed-only value is replaced by its nearest search value so
  // that seeds take part in gene arithmetic.
  std::vector<std::int64_t> search_genes(const Config& config) const;

 private:
  SearchContext context_;
  Rng rng_;
  std::unordered_set<std::uint64_t> proposed_;
  std::unordered_map<std::uint64_t, double> costs_;
  std::vector<Config> evaluated_;
  std::vector<Measurement> results_;
};

// Strategies that plan a round of candidates at a time (a neighbourhood, a generation) and decide
// the next round once every result of the last one is known.
class QueuedStrategy : public Strategy {
 public:
  void start(const SearchContext& context) final;
  std::vector<Config> ask(std::size_t max_count) final;
  void tell(std::span<const Config> configs, std::span<const Measurement> results) final;

 protected:
  virtual void on_start() {}
  // Called when the queue is empty and every proposed candidate has been told: offer() the next
  // round (`wanted` is a hint). Offering nothing ends the search.
  virtual void refill(std::size_t wanted) = 0;

  // Queues the candidate if admit() takes it; returns the normalized config queued.
  std::optional<Config> offer(Config candidate);
  // Queues up to count new random configs of the search view (with Draws::preferred, those the
  // space's preferences hold for first, as many as draws find). When draws stop finding new ones
  // in a finite view, the view's remaining configs are enumerated in random order instead, so a
  // search only runs dry once the whole view has been proposed. Returns how many were queued.
  enum class Draws { any, preferred };
  std::size_t offer_random(std::size_t count, Draws draws = Draws::any);
  // Queues every seed of the context that was never proposed; returns how many.
  std::size_t offer_seeds();
  // Queues up to count configs one step from a seed (radius 1), drawn at random from each seed's
  // neighbourhood in turn, best seed first; returns how many.
  std::size_t offer_seed_neighbours(std::size_t count);

  SearchState state_;

 private:
  // Queues up to count random draws that `accept` takes, until kMaxFruitlessDraws draws in a row
  // queue nothing; returns how many.
  template <class Accept>
  std::size_t offer_draws(std::size_t count, Accept accept);

  std::deque<Config> queue_;
  std::vector<Config> remaining_;  // the enumerated rest of a finite view, shuffled
  bool enumerated_ = false;
};

// Every config an admit() would take from a list, dropping duplicates within the list too.
std::vector<Config> fresh_candidates(const SearchState& state, std::vector<Config> candidates);

}  // namespace cutune::search
