#include "differential_evolution.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

#include "strategies.hpp"

namespace cutune::search {
namespace {

// Fresh children tried per member before falling back to mutation, then to a random draw.
constexpr int kAttempts = 12;

EvolutionSettings de_settings(Effort effort) {
  return effort == Effort::quick ? EvolutionSettings{12, 0.5, 1} : EvolutionSettings{20, 0.5, 1};
}

}  // namespace

void DifferentialEvolution::on_start() {
  initialized_ = false;
  population_.clear();
  children_.clear();
}

void DifferentialEvolution::refill(std::size_t wanted) {
  if (!initialized_) {
    initialized_ = true;
    const std::size_t seeds = offer_seeds();
    if (seeds < settings_.population) offer_random(settings_.population - seeds);
    return;
  }
  select();
  if (population_.empty()) {
    offer_random(wanted);
    return;
  }
  prepare_generation();
  for (std::size_t i = 0; i < population_.size(); ++i) {
    std::vector<Config> candidates = children_of(i);
    if (candidates.empty()) continue;
    if (std::optional<Config> child = offer(std::move(candidates[choose(candidates)]))) {
      children_.emplace_back(i, std::move(*child));
    }
  }
  if (children_.empty()) offer_random(wanted);  // the population's region is used up
}

// The first generation is every config measured so far (best first); later, each child replaces
// its member when it is at least as fast (ties move the search along plateaus).
void DifferentialEvolution::select() {
  if (population_.empty()) {
    for (std::size_t i : state_.ranking()) {
      if (population_.size() == settings_.population) break;
      population_.push_back({state_.evaluated()[i], cost_of(state_.results()[i])});
    }
    return;
  }
  for (auto& [member, child] : children_) {
    const double cost = state_.cost(child).value_or(std::numeric_limits<double>::infinity());
    if (cost <= population_[member].cost) population_[member] = {std::move(child), cost};
  }
  children_.clear();
}

// DE/rand/1: a base member plus the scaled difference of two others, all distinct from the
// target when the population allows. Greedier variants (current-to-best) settle in the first
// basin they find; spaces with several basins are the rule for kernels.
std::vector<std::int64_t> DifferentialEvolution::de_genes(std::size_t i) {
  Rng& rng = state_.rng();
  const std::size_t n = population_.size();
  const std::vector<std::int64_t> bounds = state_.space().gene_bounds(View::search);
  const std::vector<std::int64_t> target = state_.search_genes(population_[i].config);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::array<std::size_t, 3> others{};
  for (std::size_t& o : others) {
    o = pick(rng);
    for (int tries = 0; tries < 16 && n > others.size() &&
                        (o == i || std::count(others.begin(), others.end(), o) > 1);
         ++tries) {
      o = pick(rng);
    }
  }
  const std::vector<std::int64_t> base = state_.search_genes(population_[others[0]].config);
  const std::vector<std::int64_t> ga = state_.search_genes(population_[others[1]].config);
  const std::vector<std::int64_t> gb = state_.search_genes(population_[others[2]].config);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double f = 0.5 + 0.5 * unit(rng);  // dithered scale factor
  std::vector<std::int64_t> genes = target;
  const std::size_t forced = std::uniform_int_distribution<std::size_t>(0, genes.size() - 1)(rng);
  for (std::size_t g = 0; g < genes.size(); ++g) {
    if (g != forced && unit(rng) >= settings_.crossover_rate) continue;
    const double v = static_cast<double>(base[g]) + f * static_cast<double>(ga[g] - gb[g]);
    genes[g] = std::clamp<std::int64_t>(std::llround(v), 0, bounds[g] - 1);
  }
  return genes;
}

std::vector<Config> DifferentialEvolution::children_of(std::size_t i) {
  std::vector<Config> candidates;
  std::unordered_set<std::uint64_t> chosen;
  const auto keep = [&](Config c) {
    std::optional<Config> normalized = state_.normalize(std::move(c));
    if (normalized && !state_.proposed(*normalized) && chosen.insert(normalized->hash()).second) {
      candidates.push_back(std::move(*normalized));
    }
  };
  const std::size_t wanted = settings_.children_per_member;
  for (int t = 0; t < kAttempts * static_cast<int>(wanted) && candidates.size() < wanted; ++t) {
    keep(state_.space().decode(de_genes(i), View::search));
  }
  // Gene arithmetic keeps landing on known configs: perturb the member instead, then anywhere.
  const double rate =
      1.0 / static_cast<double>(std::max<std::size_t>(1, state_.space().knob_count()));
  for (int t = 0; t < kAttempts && candidates.empty(); ++t) {
    keep(state_.space().mutate(population_[i].config, state_.rng(), rate));
  }
  for (int t = 0; t < kAttempts && candidates.empty(); ++t) keep(state_.space().draw(state_.rng()));
  return candidates;
}

std::unique_ptr<Strategy> make_differential_evolution(Effort effort) {
  return std::make_unique<DifferentialEvolution>(de_settings(effort));
}

}  // namespace cutune::search
