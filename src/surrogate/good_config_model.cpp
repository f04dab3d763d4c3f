#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/surrogate.hpp"

namespace cutune {
namespace {

// The space's features, then each knob's position in its full view (its full-view genes): the
// one-hot columns of an enum say which value a config has, the positions say that 64 lies between
// 32 and 128, which lets a tree split "tile >= 64" in one step.
std::size_t width_of(const Space& space) {
  return space.feature_count() + space.gene_bounds(View::full).size();
}

std::vector<double> feature_rows(std::span<const Config> configs) {
  std::vector<double> rows;
  if (configs.empty()) return rows;
  rows.reserve(configs.size() * width_of(configs.front().space()));
  for (const Config& config : configs) {
    const std::vector<double> features = config.space().features(config);
    rows.insert(rows.end(), features.begin(), features.end());
    for (std::int64_t gene : config.space().encode(config, View::full)) {
      rows.push_back(static_cast<double>(gene));
    }
  }
  return rows;
}

}  // namespace

std::vector<int> best_fraction_labels(std::span<const Measurement> results, double fraction) {
  std::vector<double> times;
  for (const Measurement& m : results) {
    if (m.ok()) times.push_back(m.time_ms);
  }
  std::vector<int> labels(results.size(), 0);
  if (times.empty()) return labels;
  const auto good_count = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(times.size()))), 1,
      times.size());
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(good_count - 1),
                   times.end());
  const double threshold = times[good_count - 1];
  for (std::size_t i = 0; i < results.size(); ++i) {
    labels[i] = results[i].ok() && results[i].time_ms <= threshold ? 1 : 0;
  }
  return labels;
}

GoodConfigModel::GoodConfigModel(ClassifierOptions options, double good_fraction)
    : options_(options), good_fraction_(good_fraction), classifier_(options) {
  if (!(good_fraction > 0.0 && good_fraction < 1.0)) {
    throw std::invalid_argument("good-config model: good_fraction must be in (0, 1)");
  }
}

bool GoodConfigModel::fit(std::span<const Config> configs, std::span<const Measurement> results) {
  if (configs.size() != results.size()) {
    throw std::invalid_argument("good-config model: configs and results differ in length");
  }
  const std::vector<int> labels = best_fraction_labels(results, good_fraction_);
  const auto good = std::count(labels.begin(), labels.end(), 1);
  if (good == 0 || good == static_cast<std::ptrdiff_t>(labels.size())) {
    classifier_ = Classifier(options_);
    return false;
  }
  feature_count_ = width_of(configs.front().space());
  classifier_.fit(feature_rows(configs), feature_count_, labels);
  return true;
}

std::vector<double> GoodConfigModel::score(std::span<const Config> configs) const {
  return classifier_.predict(feature_rows(configs));
}

}  // namespace cutune
