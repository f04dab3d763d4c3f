// Differential evolution over the search view's genes, shared by "de" and the surrogate-screened
// "hybrid": a population seeded with the heuristics and random configs; each generation makes one
// child per member (rand/1 mutation with binomial crossover on genes, repaired by the
// normalizer), and a child replaces its parent when it is at least as fast.
#pragma once

#include <vector>

#include "search_state.hpp"

namespace cutune::search {

struct EvolutionSettings {
  std::size_t population;
  double crossover_rate;
  std::size_t children_per_member;  // candidates drawn per member; >1 only with a screen
};

class DifferentialEvolution : public QueuedStrategy {
 public:
  explicit DifferentialEvolution(EvolutionSettings settings) : settings_(settings) {}
  std::string_view name() const override { return "de"; }

 protected:
  // Picks the index of the candidate to measure for one member. The plain strategy takes the
  // first; the hybrid ranks them with its surrogate.
  virtual std::size_t choose(const std::vector<Config>& candidates) {
    (void)candidates;
    return 0;
  }
  // Called once per generation, before any choose().
  virtual void prepare_generation() {}

  const EvolutionSettings settings_;

 private:
  struct Member {
    Config config;
    double cost;
  };

  void on_start() override;
  void refill(std::size_t wanted) override;
  void select();
  // Up to children_per_member fresh candidates for member i; empty when none can be found.
  std::vector<Config> children_of(std::size_t i);
  std::vector<std::int64_t> de_genes(std::size_t i);

  bool initialized_ = false;
  std::vector<Member> population_;
  std::vector<std::pair<std::size_t, Config>> children_;  // (member, child) of the last generation
};

}  // namespace cutune::search
