#include "cutune/space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace cutune {
namespace {

// Repairs may undo one another; a candidate still changing after this many passes is dropped.
constexpr int kMaxNormalizePasses = 8;

// A constraint or a preference is named in every report and must judge configs.
void require_name_and_predicate(std::string_view kind, const std::string& name,
                                bool has_predicate) {
  if (name.empty()) throw std::invalid_argument(fmt::format("a {} needs a name", kind));
  if (!has_predicate) {
    throw std::invalid_argument(fmt::format("{} '{}' has no predicate", kind, name));
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::uint64_t> product(std::optional<std::uint64_t> a,
                                     std::optional<std::uint64_t> b) {
  if (!a || !b) return std::nullopt;
  if (*b != 0 && *a > std::numeric_limits<std::uint64_t>::max() / *b) return std::nullopt;
  return *a * *b;
}

}  // namespace

Space& Space::add(std::string name, FragmentPtr fragment) {
  if (name.empty()) throw std::invalid_argument("a knob needs a name");
  if (find(name)) throw std::invalid_argument("knob '" + name + "' is declared twice");
  if (!fragment) throw std::invalid_argument("knob '" + name + "' has no fragment");
  for (View view : {View::full, View::search}) {
    Layout& l = view == View::full ? full_ : search_;
    const std::vector<std::int64_t> bounds = fragment->gene_bounds(view);
    l.bounds.insert(l.bounds.end(), bounds.begin(), bounds.end());
    l.offsets.push_back(l.bounds.size());
  }
  feature_offsets_.push_back(feature_offsets_.back() + fragment->feature_count());
  layout_hash_ = Value(name).hash(layout_hash_);
  names_.push_back(std::move(name));
  fragments_.push_back(std::move(fragment));
  return *this;
}

Space& Space::constrain(Constraint constraint) {
  require_name_and_predicate("constraint", constraint.name, bool(constraint.holds));
  constraints_.push_back(std::move(constraint));
  return *this;
}

Space& Space::prefer(Preference preference) {
  require_name_and_predicate("preference", preference.name, bool(preference.holds));
  preferences_.push_back(std::move(preference));
  return *this;
}

std::optional<std::size_t> Space::find(std::string_view name) const {
  for (std::size_t knob = 0; knob < names_.size(); ++knob) {
    if (names_[knob] == name) return knob;
  }
  return std::nullopt;
}

std::size_t Space::index_of(std::string_view name) const {
  if (auto knob = find(name)) return *knob;
  if (names_.empty())
    throw ConfigError(fmt::format("unknown knob '{}': the space has no knobs", name));
  throw ConfigError(
      fmt::format("unknown knob '{}' (did you mean '{}'?)", name, closest_name(name)));
}

std::string Space::closest_name(std::string_view name) const {
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& candidate : names_) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

ConfigError Space::knob_error(std::size_t knob, const std::exception& cause) const {
  return ConfigError(fmt::format("knob '{}': {}", names_[knob], cause.what()));
}

Config Space::default_config() const {
  std::vector<Value> values;
  values.reserve(fragments_.size());
  for (const FragmentPtr& f : fragments_) values.push_back(f->default_value());
  return Config(*this, std::move(values), Config::Unchecked{});
}

Config Space::draw(Rng& rng) const {
  std::vector<Value> values;
  values.reserve(fragments_.size());
  for (const FragmentPtr& f : fragments_) values.push_back(f->draw(rng));
  return Config(*this, std::move(values), Config::Unchecked{});
}

Config Space::complete(const PartialConfig& partial) const {
  Config config = default_config();
  for (const auto& [name, value] : partial) config.set(index_of(name), value);
  return config;
}

Config Space::from_json(const nlohmann::json& j) const {
  if (!j.is_object()) {
    throw ConfigError("a config must be a JSON object of knob values, got " + j.dump());
  }
  PartialConfig partial;
  for (const auto& [name, value] : j.items()) {
    const std::size_t knob = index_of(name);
    try {
      partial.emplace(name, Value::from_json(value));
    } catch (const std::invalid_argument& e) {
      throw knob_error(knob, e);
    }
  }
  return complete(partial);
}

Normalized Space::normalize(Config config, const Problem& problem, const Device& device) const {
  Normalized result;
  std::size_t current = 0;  // the constraint being checked or repaired, to name it if it throws
  try {
    for (int pass = 0; pass < kMaxNormalizePasses; ++pass) {
      bool repaired = false;
      std::optional<std::size_t> unrepairable;
      for (current = 0; current < constraints_.size(); ++current) {
        const Constraint& c = constraints_[current];
        if (c.holds(config, problem, device)) continue;
        if (!c.repair) {
          if (!unrepairable) unrepairable = current;
          continue;
        }
        c.repair(config, problem, device);
        repaired = true;
        if (std::find(result.fired.begin(), result.fired.end(), current) == result.fired.end()) {
          result.fired.push_back(current);
        }
      }
      if (!repaired) {
        if (unrepairable) {
          result.failure = constraints_[*unrepairable].name;
        } else {
          result.config = std::move(config);
        }
        return result;
      }
    }
    // Still being repaired after the last pass: name what does not hold.
    for (current = 0; current < constraints_.size(); ++current) {
      if (!constraints_[current].holds(config, problem, device)) {
        result.failure = fmt::format("{} (still violated after {} repair passes)",
                                     constraints_[current].name, kMaxNormalizePasses);
        return result;
      }
    }
  } catch (const std::exception& e) {
    result.failure = fmt::format("{} ({})", constraints_[current].name, e.what());
    return result;
  }
  result.config = std::move(config);
  return result;
}

bool Space::legal(const Config& config, const Problem& problem, const Device& device) const {
  return std::all_of(constraints_.begin(), constraints_.end(),
                     [&](const Constraint& c) { return c.holds(config, problem, device); });
}

std::vector<std::int64_t> Space::gene_bounds(View view) const { return layout(view).bounds; }

std::vector<std::int64_t> Space::encode(const Config& config, View view) const {
  const Layout& l = layout(view);
  std::vector<std::int64_t> genes(l.bounds.size());
  for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
    try {
      fragments_[knob]->encode_genes(
          config.at(knob), view,
          std::span(genes).subspan(l.offsets[knob], l.offsets[knob + 1] - l.offsets[knob]));
    } catch (const std::invalid_argument& e) {
      throw knob_error(knob, e);
    }
  }
  return genes;
}

Config Space::decode(std::span<const std::int64_t> genes, View view) const {
  const Layout& l = layout(view);
  if (genes.size() != l.bounds.size()) {
    throw ConfigError(fmt::format("expected {} genes, got {}", l.bounds.size(), genes.size()));
  }
  std::vector<Value> values;
  values.reserve(fragments_.size());
  for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
    try {
      values.push_back(fragments_[knob]->decode_genes(
          genes.subspan(l.offsets[knob], l.offsets[knob + 1] - l.offsets[knob]), view));
    } catch (const std::invalid_argument& e) {
      throw knob_error(knob, e);
    }
  }
  return Config(*this, std::move(values), Config::Unchecked{});
}

std::size_t Space::feature_count() const { return feature_offsets_.back(); }

std::vector<double> Space::features(const Config& config) const {
  std::vector<double> out(feature_count());
  for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
    try {
      fragments_[knob]->encode_features(
          config.at(knob),
          std::span(out).subspan(feature_offsets_[knob],
                                 feature_offsets_[knob + 1] - feature_offsets_[knob]));
    } catch (const std::invalid_argument& e) {
      throw knob_error(knob, e);
    }
  }
  return out;
}

std::vector<Config> Space::neighbours(const Config& config, int radius) const {
  std::vector<Config> result;
  for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
    for (Value& v : fragments_[knob]->neighbours(config.at(knob), radius)) {
      Config neighbour = config;
      neighbour.values_[knob] = std::move(v);
      result.push_back(std::move(neighbour));
    }
  }
  return result;
}

Config Space::mutate(const Config& config, Rng& rng, double rate) const {
  Config mutated = config;
  std::bernoulli_distribution chosen(std::clamp(rate, 0.0, 1.0));
  bool changed = false;
  for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
    if (chosen(rng)) {
      mutated.values_[knob] = fragments_[knob]->mutate(config.at(knob), rng);
      changed = changed || mutated.values_[knob] != config.at(knob);
    }
  }
  if (!changed && !fragments_.empty()) {
    // A mutation that changes nothing wastes an evaluation: change one knob that can change.
    std::vector<std::size_t> movable;
    for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
      if (fragments_[knob]->cardinality(View::search) != std::uint64_t{1}) movable.push_back(knob);
    }
    if (!movable.empty()) {
      const std::size_t knob =
          movable[std::uniform_int_distribution<std::size_t>(0, movable.size() - 1)(rng)];
      mutated.values_[knob] = fragments_[knob]->mutate(config.at(knob), rng);
    }
  }
  return mutated;
}

Config Space::crossover(const Config& a, const Config& b, Rng& rng) const {
  std::vector<Value> values;
  values.reserve(fragments_.size());
  for (std::size_t knob = 0; knob < fragments_.size(); ++knob) {
    values.push_back(fragments_[knob]->crossover(a.at(knob), b.at(knob), rng));
  }
  return Config(*this, std::move(values), Config::Unchecked{});
}

std::optional<std::uint64_t> Space::size(View view) const {
  std::optional<std::uint64_t> count = 1;
  for (const FragmentPtr& f : fragments_) count = product(count, f->cardinality(view));
  return count;
}

std::vector<Config> Space::enumerate(View view, std::uint64_t max_count) const {
  const auto count = size(view);
  if (!count || *count > max_count) {
    throw std::length_error(fmt::format("the {} view has {} configs, more than the {} allowed",
                                        view == View::full ? "full" : "search",
                                        count ? std::to_string(*count) : "over 2^64", max_count));
  }
  const std::vector<std::int64_t>& bounds = layout(view).bounds;
  std::vector<std::int64_t> genes(bounds.size(), 0);
  std::vector<Config> configs;
  configs.reserve(*count);
  for (std::uint64_t n = 0; n < *count; ++n) {
    configs.push_back(decode(genes, view));
    // Odometer: the last gene turns fastest, so the order is lexicographic in genes.
    for (std::size_t i = genes.size(); i-- > 0;) {
      if (++genes[i] < bounds[i]) break;
      genes[i] = 0;
    }
  }
  return configs;
}

}  // namespace cutune
