#include "dispatch/dispatch_gather.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "space/log_shape.hpp"
#include "space/repair.hpp"

namespace cutune::dispatch {

namespace {

// The most common value of one key field (ties: the smallest), unless given.
std::string most_common(const std::vector<TuningKey>& keys, std::string TuningKey::*field,
                        const std::string& given) {
  if (!given.empty()) return given;
  std::map<std::string, int> counts;
  for (const auto& key : keys) ++counts[key.*field];
  std::string best;
  int best_count = 0;
  for (const auto& [value, count] : counts) {
    if (count > best_count) {
      best = value;
      best_count = count;
    }
  }
  return best;
}

// Keeps, per config, the faster of two keys' cells (a shape tuned under several toolchains).
void merge_fastest(std::map<std::string, Cell>& into, const std::map<std::string, Cell>& from) {
  for (const auto& [hash, cell] : from) {
    auto [it, inserted] = into.try_emplace(hash, cell);
    if (!inserted && cell.state == Cell::State::ok &&
        (it->second.state != Cell::State::ok || cell.time_ms < it->second.time_ms)) {
      it->second = cell;
    }
  }
}

// What the store holds about one problem text.
struct Measured {
  std::map<std::string, Cell> latest;  // every config's latest measurement, any source
  std::map<std::string, Cell> tuned;   // the same from its tunes only (not cross-measure)
  std::pair<double, std::string> decided{-1.0, ""};  // timestamp, winner hash
  TuningKey key;
};

// The shape's winner (its decision, else its tunes' fastest) followed by its next fastest tuned
// configs, `count` in all; empty when nothing ran correctly.
std::vector<std::string> ranked_configs(const Measured& m, std::size_t count) {
  std::vector<std::pair<double, std::string>> ok;
  for (const auto& [hash, cell] : m.tuned.empty() ? m.latest : m.tuned) {
    if (cell.state == Cell::State::ok) ok.emplace_back(cell.time_ms, hash);
  }
  std::sort(ok.begin(), ok.end());
  std::vector<std::string> out;
  if (auto it = m.latest.find(m.decided.second);
      !m.decided.second.empty() && it != m.latest.end() && it->second.state == Cell::State::ok) {
    out.push_back(m.decided.second);
  }
  for (const auto& [time, hash] : ok) {
    if (out.size() >= count) break;
    if (std::find(out.begin(), out.end(), hash) == out.end()) out.push_back(hash);
  }
  return out;
}

}  // namespace

Gathered gather(Store& store, const DispatchOptions& options) {
  if (options.family.empty()) throw std::invalid_argument("dispatch: a family is required");
  Gathered g;
  auto keys = store.keys({.family = options.family, .device = options.device});
  g.device = most_common(keys, &TuningKey::device, options.device);
  std::erase_if(keys, [&](const TuningKey& k) { return k.device != g.device; });
  g.version = most_common(keys, &TuningKey::family_version, options.version);
  std::erase_if(keys, [&](const TuningKey& k) { return k.family_version != g.version; });
  if (keys.empty()) {
    throw std::invalid_argument(
        fmt::format("dispatch: the store holds no tuned shape of family '{}'{}{}", options.family,
                    options.device.empty() ? "" : " on device '" + options.device + "'",
                    options.version.empty() ? "" : " at version '" + options.version + "'"));
  }

  // Per problem text (over toolchains: the fastest latest measurement, the latest decision).
  std::map<std::string, Measured> measured;
  std::map<std::string, nlohmann::json> config_by_hash;
  for (const TuningKey& key : keys) {
    auto [entry, first] = measured.try_emplace(key.problem);
    Measured& m = entry->second;
    if (first) m.key = key;
    if (auto d = store.decision(key); d && d->timestamp > m.decided.first) {
      m.decided = {d->timestamp, d->winner_hash};
    }
    std::map<std::string, Cell> latest, tuned;
    for (const StoredResult& r : store.results(key)) {
      // A transient failure is no verdict on the config (as in the store's latest_per_config).
      if (r.measurement.outcome == Outcome::transient) continue;
      Cell cell{r.measurement.ok() ? Cell::State::ok : Cell::State::failed, r.measurement.time_ms};
      latest[r.config_hash] = cell;
      if (r.tune_id != kCrossMeasure) tuned[r.config_hash] = cell;
      if (!config_by_hash.contains(r.config_hash)) {
        config_by_hash[r.config_hash] = nlohmann::json::parse(r.config_json);
      }
    }
    merge_fastest(m.latest, latest);
    merge_fastest(m.tuned, tuned);
  }

  DispatchFitter& fitter = g.fitter;
  std::map<std::string, std::size_t> candidate_index;
  std::vector<const Measured*> of_shape;
  for (const auto& [problem_text, m] : measured) {
    const std::vector<std::string> ranked =
        ranked_configs(m, std::max<std::size_t>(1, options.candidates_per_shape));
    if (ranked.empty()) continue;  // nothing ran correctly on this shape
    Problem problem = Problem::parse(problem_text);
    if (fitter.shapes.empty()) {
      g.features = shape::numeric_names(problem);
      g.fixed = shape::fixed_args(problem);
    } else if (shape::numeric_names(problem) != g.features ||
               shape::fixed_args(problem) != g.fixed) {
      throw std::invalid_argument(fmt::format(
          "dispatch: shapes '{}' and '{}' differ in their argument names or in a non-numeric "
          "argument; fit one dispatcher per value (e.g. per dtype)",
          fitter.shapes.front().problem.canonical(), problem_text));
    }
    const std::size_t shape_index = fitter.shapes.size();
    for (const std::string& hash : ranked) {
      auto [it, inserted] = candidate_index.try_emplace(hash, fitter.hashes.size());
      if (inserted) {
        fitter.hashes.push_back(hash);
        fitter.configs.push_back(config_by_hash.at(hash));
        fitter.origins.emplace_back();
      }
      fitter.origins[it->second].push_back(shape_index);
    }
    Shape shape;
    shape.x = *shape::log_point(problem, g.features);
    for (const auto& name : g.features) shape.raw.push_back(problem.at(name).as_double());
    shape.problem = std::move(problem);
    shape.best = candidate_index.at(ranked.front());
    // Its latest time (a re-measurement beside the other candidates, when there was one).
    const Cell& latest = m.latest.at(ranked.front());
    shape.best_ms =
        latest.state == Cell::State::ok ? latest.time_ms : m.tuned.at(ranked.front()).time_ms;
    fitter.shapes.push_back(std::move(shape));
    g.shape_keys.push_back(m.key);
    of_shape.push_back(&m);
  }
  if (fitter.shapes.empty()) {
    throw std::invalid_argument(
        fmt::format("dispatch: no shape of family '{}' has a correct measurement", options.family));
  }
  fitter.feature_count = g.features.size();
  fitter.cells.assign(fitter.shapes.size(), std::vector<Cell>(fitter.hashes.size()));
  for (std::size_t s = 0; s < fitter.shapes.size(); ++s) {
    const auto& latest = of_shape[s]->latest;
    for (std::size_t c = 0; c < fitter.hashes.size(); ++c) {
      std::string hash = fitter.hashes[c];
      if (options.repair_space) {
        // A config the space cannot read (another version of it) is looked up as it stands.
        const Repaired r = repaired(*options.repair_space, fitter.configs[c],
                                    fitter.shapes[s].problem, options.repair_device);
        if (r.readable && !r.config) {
          fitter.cells[s][c].state = Cell::State::failed;
          continue;
        }
        if (r.config) hash = r.config->hash_hex();
      }
      if (auto it = latest.find(hash); it != latest.end()) fitter.cells[s][c] = it->second;
    }
  }
  fitter.compute_scores();
  return g;
}

}  // namespace cutune::dispatch
