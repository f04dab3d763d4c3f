#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

#include "cutune/space.hpp"
#include "cutune/transfer.hpp"

namespace cutune {
namespace {

// A prior is judged once this device has this many correct results: fewer say nothing of a rank.
constexpr std::size_t kMinJudged = 8;
// The classifier of each prior, as lfbo's: "among the fastest 15 %" of the source's results.
constexpr double kGoodFraction = 0.15;

}  // namespace

TransferPrior::TransferPrior(std::vector<PriorSource> sources, std::uint64_t seed) {
  for (PriorSource& s : sources) {
    if (s.configs.size() != s.results.size()) {
      throw std::invalid_argument(fmt::format("transfer prior '{}': {} configs but {} results",
                                              s.name, s.configs.size(), s.results.size()));
    }
    if (s.configs.empty()) continue;
    if (!sources_.empty() &&
        &s.configs.front().space() != &sources_.front().configs.front().space())
      throw std::invalid_argument(
          fmt::format("transfer prior '{}': its configs belong to another space", s.name));
    Source source{.report = {.name = s.name, .rows = s.configs.size(), .weight = 1.0}};
    ClassifierOptions options;
    options.seed = seed + sources_.size();
    auto model = std::make_shared<GoodConfigModel>(options, kGoodFraction);
    if (model->fit(s.configs, s.results)) source.model = std::move(model);
    source.configs = std::move(s.configs);
    source.results = std::move(s.results);
    sources_.push_back(std::move(source));
  }
}

std::vector<std::size_t> TransferPrior::seed_order(const Source& s, std::size_t per_source) {
  std::vector<std::size_t> fastest;
  for (std::size_t i = 0; i < s.results.size(); ++i)
    if (s.results[i].ok()) fastest.push_back(i);
  std::stable_sort(fastest.begin(), fastest.end(), [&](std::size_t a, std::size_t b) {
    return s.results[a].time_ms < s.results[b].time_ms;
  });
  if (fastest.size() > per_source) fastest.resize(per_source);
  const auto knobs_apart = [&](std::size_t a, std::size_t b) {
    const Config& x = s.configs[a];
    const Config& y = s.configs[b];
    std::size_t n = 0;
    for (std::size_t k = 0; k < x.space().knob_count(); ++k) n += x.at(k) == y.at(k) ? 0 : 1;
    return n;
  };
  // Greedy: next is the one farthest from its nearest predecessor, the faster on ties (the first
  // pick, with every distance unbounded, is the fastest).
  std::vector<std::size_t> nearest(fastest.size(), SIZE_MAX);
  std::vector<bool> taken(fastest.size(), false);
  std::vector<std::size_t> order;
  while (order.size() < fastest.size()) {
    std::size_t pick = SIZE_MAX;
    for (std::size_t i = 0; i < fastest.size(); ++i)
      if (!taken[i] && (pick == SIZE_MAX || nearest[i] > nearest[pick])) pick = i;
    taken[pick] = true;
    order.push_back(fastest[pick]);
    for (std::size_t i = 0; i < fastest.size(); ++i)
      if (!taken[i]) nearest[i] = std::min(nearest[i], knobs_apart(fastest[i], fastest[pick]));
  }
  return order;
}

std::vector<Config> TransferPrior::seeds(std::size_t count, std::size_t per_source) {
  std::vector<std::vector<std::size_t>> lists;
  for (const Source& s : sources_) {
    lists.push_back(seed_order(s, per_source));
    if (lists.back().size() > count) lists.back().resize(count);
  }
  std::vector<Config> out;
  std::unordered_set<std::uint64_t> taken;
  for (std::size_t rank = 0; rank < count; ++rank) {
    for (std::size_t s = 0; s < sources_.size(); ++s) {
      if (rank >= lists[s].size()) continue;
      const Config& config = sources_[s].configs[lists[s][rank]];
      if (taken.insert(config.hash()).second) {
        out.push_back(config);
        ++sources_[s].report.seeds;
      }
    }
  }
  return out;
}

void TransferPrior::observe(std::span<const Config> configs, std::span<const Measurement> results) {
  for (std::size_t i = 0; i < configs.size() && i < results.size(); ++i) {
    if (!results[i].ok()) continue;  // a failure has no rank among times
    seen_.push_back(configs[i]);
    seen_results_.push_back(results[i]);
  }
  reweigh();
}

// Judged on the faster half of this device's correct results: where a prior must be right is the
// top, and a prior fitted on another device's region can rank the whole space well (A4000 against
// A100: 0.90 over every config) while its best configs reach only 0.67 of this device's optimum.
void TransferPrior::reweigh() {
  if (seen_.size() < kMinJudged) return;
  std::vector<std::size_t> order(seen_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return seen_results_[a].time_ms < seen_results_[b].time_ms;
  });
  order.resize(std::max(kMinJudged, seen_.size() / 2));
  std::vector<Config> top;
  std::vector<double> speed;
  for (std::size_t i : order) {
    top.push_back(seen_[i]);
    speed.push_back(-seen_results_[i].time_ms);
  }
  for (Source& s : sources_) {
    s.report.observed = seen_.size();
    s.report.weight = s.model ? std::max(0.0, rank_correlation(s.model->score(top), speed)) : 0.0;
  }
}

std::vector<PriorWeight> TransferPrior::weights() const {
  std::vector<PriorWeight> out;
  for (const Source& s : sources_) out.push_back(s.report);
  return out;
}

}  // namespace cutune
