#include "search_state.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace cutune::search {

namespace {
// A finite view this small is enumerated once random draws stop finding new configs.
constexpr std::uint64_t kMaxEnumerated = 2'000'000;
// Consecutive draws that found nothing new before random sampling gives up on drawing.
constexpr std::size_t kMaxFruitlessDraws = 2000;
}  // namespace

void SearchState::start(const SearchContext& context) {
  if (context.space == nullptr) throw std::invalid_argument("search: the context has no space");
  context_ = context;
  rng_.seed(context.rng_seed);
  proposed_.clear();
  costs_.clear();
  evaluated_.clear();
  results_.clear();
}

std::optional<Config> SearchState::normalize(Config candidate) const {
  try {
    return space().normalize(std::move(candidate), context_.problem, context_.device).config;
  } catch (const ConfigError&) {
    return std::nullopt;  // counted by the driver as a drop, never fatal
  }
}

std::optional<Config> SearchState::admit(Config candidate) {
  std::optional<Config> normalized = normalize(std::move(candidate));
  if (!normalized || !proposed_.insert(normalized->hash()).second) return std::nullopt;
  return normalized;
}

bool SearchState::proposed(const Config& normalized) const {
  return proposed_.contains(normalized.hash());
}

bool SearchState::preferred(const Config& normalized) const {
  try {
    return space().preferred(normalized, context_.problem, context_.device);
  } catch (const std::exception&) {
    return false;  // a preference that cannot judge the config is no reason to prefer it
  }
}

bool SearchState::preferences_stand() const {
  if (space().preferences().empty() || results_.empty()) return false;
  const std::size_t fastest = ranking().front();
  return results_[fastest].ok() && preferred(evaluated_[fastest]);
}

void SearchState::record(std::span<const Config> configs, std::span<const Measurement> results) {
  if (configs.size() != results.size()) {
    throw std::invalid_argument("search: tell() got configs and results of different lengths");
  }
  for (std::size_t i = 0; i < configs.size(); ++i) {
    costs_[configs[i].hash()] = cost_of(results[i]);
    evaluated_.push_back(configs[i]);
    results_.push_back(results[i]);
  }
}

std::optional<double> SearchState::cost(const Config& normalized) const {
  const auto it = costs_.find(normalized.hash());
  if (it == costs_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::size_t> SearchState::ranking() const {
  std::vector<std::size_t> order(results_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
    return cost_of(results_[a]) < cost_of(results_[b]);
  });
  return order;
}

std::vector<std::int64_t> SearchState::search_genes(const Config& config) const {
  const Space& s = space();
  std::vector<std::int64_t> genes;
  for (std::size_t k = 0; k < s.knob_count(); ++k) {
    const Fragment& fragment = s.fragment(k);
    const std::size_t width = fragment.gene_bounds(View::search).size();
    const std::size_t at = genes.size();
    genes.resize(at + width);
    fragment.encode_genes(fragment.nearest_search(config.at(k)), View::search,
                          std::span(genes).subspan(at, width));
  }
  return genes;
}

void QueuedStrategy::start(const SearchContext& context) {
  state_.start(context);
  queue_.clear();
  remaining_.clear();
  enumerated_ = false;
  on_start();
}

std::vector<Config> QueuedStrategy::ask(std::size_t max_count) {
  if (max_count == 0) return {};
  if (queue_.empty()) refill(max_count);
  std::vector<Config> batch;
  while (!queue_.empty() && batch.size() < max_count) {
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void QueuedStrategy::tell(std::span<const Config> configs, std::span<const Measurement> results) {
  state_.record(configs, results);
}

std::optional<Config> QueuedStrategy::offer(Config candidate) {
  std::optional<Config> admitted = state_.admit(std::move(candidate));
  if (admitted) queue_.push_back(*admitted);
  return admitted;
}

template <class Accept>
std::size_t QueuedStrategy::offer_draws(std::size_t count, Accept accept) {
  std::size_t queued = 0;
  std::size_t fruitless = 0;
  while (queued < count && fruitless < kMaxFruitlessDraws) {
    Config drawn = state_.space().draw(state_.rng());
    if (accept(drawn) && offer(std::move(drawn))) {
      ++queued;
      fruitless = 0;
    } else {
      ++fruitless;
    }
  }
  return queued;
}

std::size_t QueuedStrategy::offer_random(std::size_t count, Draws draws) {
  std::size_t queued = 0;
  if (draws == Draws::preferred && !state_.space().preferences().empty()) {
    queued = offer_draws(count, [this](const Config& drawn) {
      const std::optional<Config> normalized = state_.normalize(drawn);
      return normalized && state_.preferred(*normalized);
    });
  }
  if (!enumerated_) queued += offer_draws(count - queued, [](const Config&) { return true; });
  if (queued < count && !enumerated_) {
    // Draws keep landing on known or illegal configs: list what is left of a finite view.
    const std::optional<std::uint64_t> size = state_.space().size(View::search);
    if (size && *size <= kMaxEnumerated) {
      enumerated_ = true;
      remaining_ = state_.space().enumerate(View::search, kMaxEnumerated);
      std::shuffle(remaining_.begin(), remaining_.end(), state_.rng());
    }
  }
  while (queued < count && !remaining_.empty()) {
    if (offer(std::move(remaining_.back()))) ++queued;
    remaining_.pop_back();
  }
  return queued;
}

std::size_t QueuedStrategy::offer_seeds() {
  std::size_t queued = 0;
  for (const Config& seed : state_.context().seeds)
    if (offer(seed)) ++queued;
  return queued;
}

std::size_t QueuedStrategy::offer_seed_neighbours(std::size_t count) {
  std::vector<std::vector<Config>> around;
  for (const Config& seed : state_.context().seeds) {
    const std::optional<Config> centre = state_.normalize(seed);
    if (!centre) continue;
    around.push_back(fresh_candidates(state_, state_.space().neighbours(*centre, 1)));
    std::shuffle(around.back().begin(), around.back().end(), state_.rng());
  }
  std::size_t queued = 0;
  for (std::size_t depth = 0, left = 1; queued < count && left > 0; ++depth) {
    left = 0;
    for (std::vector<Config>& neighbours : around) {
      if (depth >= neighbours.size()) continue;
      ++left;
      if (queued < count && offer(std::move(neighbours[depth]))) ++queued;
    }
  }
  return queued;
}

std::vector<Config> fresh_candidates(const SearchState& state, std::vector<Config> candidates) {
  std::vector<Config> fresh;
  std::unordered_set<std::uint64_t> seen;
  for (Config& candidate : candidates) {
    std::optional<Config> normalized = state.normalize(std::move(candidate));
    if (!normalized || state.proposed(*normalized) || !seen.insert(normalized->hash()).second) {
      continue;
    }
    fresh.push_back(std::move(*normalized));
  }
  return fresh;
}

}  // namespace cutune::search
