#include "cutune/diversity.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

namespace cutune {
namespace {

constexpr std::size_t kDropReasonsKept = 5;
// As Helion builds a random population: a member still missing after this many draws apiece is
// left out.
constexpr std::size_t kDrawsPerMember = 64;

double fraction(std::size_t count, std::size_t of) {
  return of ? static_cast<double>(count) / static_cast<double>(of) : 0.0;
}

}  // namespace

double DiversityReport::constraint_rate(std::size_t i) const {
  return fraction(constraint_trips[i], draws);
}

double DiversityReport::preference_share(std::size_t i) const {
  return fraction(preference_holds[i], distinct);
}

DiversityReport measure_diversity(const TuningSpace& ts, const Problem& problem,
                                  const Device& device, std::size_t population,
                                  std::uint64_t seed) {
  const Space& space = ts.space;
  DiversityReport report;
  report.population = population;
  for (const Constraint& c : space.constraints()) report.constraint_names.push_back(c.name);
  report.constraint_trips.assign(space.constraints().size(), 0);
  for (const Preference& p : space.preferences()) report.preference_names.push_back(p.name);
  report.preference_holds.assign(space.preferences().size(), 0);

  Rng rng(seed);
  std::unordered_set<std::uint64_t> hashes;
  std::vector<std::set<Value>> values_seen(space.knob_count());
  const std::size_t max_draws = kDrawsPerMember * population;
  while (hashes.size() < population && report.draws < max_draws) {
    Normalized n = space.normalize(space.draw(rng), problem, device);
    ++report.draws;
    for (std::size_t fired : n.fired) ++report.constraint_trips[fired];
    if (!n.config) {
      ++report.dropped;
      if (report.drop_reasons.size() < kDropReasonsKept)
        report.drop_reasons.push_back("violates " + n.failure);
    } else if (!hashes.insert(n.config->hash()).second) {
      ++report.duplicates;
    } else {
      for (std::size_t knob = 0; knob < space.knob_count(); ++knob) {
        values_seen[knob].insert(n.config->at(knob));
      }
      for (std::size_t i = 0; i < space.preferences().size(); ++i) {
        if (space.preferences()[i].holds(*n.config, problem, device)) ++report.preference_holds[i];
      }
    }
    if (report.draws == population) report.first_distinct = hashes.size();
  }
  report.distinct = hashes.size();
  for (std::size_t knob = 0; knob < space.knob_count(); ++knob) {
    if (space.fragment(knob).cardinality(View::search) != std::uint64_t{1}) {
      report.searchable_knobs.push_back(space.names()[knob]);
    }
    if (values_seen[knob].size() > 1) report.varying_knobs.push_back(space.names()[knob]);
  }

  report.problem_errors = problem_errors(ts, problem, device);
  for (const HeuristicSeed* s : eligible_seeds(ts, problem, device)) {
    report.eligible_seeds.push_back(s->name);
  }
  for (const Config& config : seed_configs(ts, problem, device, &report.seed_errors)) {
    report.seed_configs.push_back(config.to_string());
  }
  try {
    report.default_config = default_config(ts, problem, device).to_string();
  } catch (const std::exception& e) {
    report.default_error = e.what();
  }
  return report;
}

nlohmann::json DiversityReport::to_json() const {
  nlohmann::json constraints = nlohmann::json::array();
  for (std::size_t i = 0; i < constraint_names.size(); ++i) {
    constraints.push_back({{"name", constraint_names[i]},
                           {"trips", constraint_trips[i]},
                           {"rate", constraint_rate(i)}});
  }
  nlohmann::json preferences = nlohmann::json::array();
  for (std::size_t i = 0; i < preference_names.size(); ++i) {
    preferences.push_back({{"name", preference_names[i]},
                           {"holds", preference_holds[i]},
                           {"share", preference_share(i)}});
  }
  nlohmann::json j = {{"population", population},
                      {"draws", draws},
                      {"distinct", distinct},
                      {"first_distinct", first_distinct},
                      {"duplicates", duplicates},
                      {"dropped", dropped},
                      {"searchable_knobs", searchable_knobs},
                      {"varying_knobs", varying_knobs},
                      {"constraints", constraints},
                      {"preferences", preferences},
                      {"problem_errors", problem_errors},
                      {"eligible_seeds", eligible_seeds},
                      {"seed_configs", nlohmann::json::array()},
                      {"seed_errors", seed_errors},
                      {"drop_reasons", drop_reasons}};
  for (const std::string& config : seed_configs) {
    j["seed_configs"].push_back(nlohmann::json::parse(config));
  }
  if (default_error.empty()) {
    j["default_config"] = nlohmann::json::parse(default_config);
  } else {
    j["default_error"] = default_error;
  }
  return j;
}

}  // namespace cutune
