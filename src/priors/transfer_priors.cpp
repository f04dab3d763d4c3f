// Transfer priors of a tune: the same family's results on other devices and other shapes, one
// prior per store key (cutune/transfer.hpp weighs each by how it ranks this device's results).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cutune/warm_start.hpp"

namespace cutune {

namespace {

// A key with fewer correct results than this teaches a classifier nothing about the top.
constexpr std::size_t kMinPriorRows = 8;

}  // namespace

std::vector<PriorWeight> add_priors(TuneOptions& options, Store& store, const Family& family,
                                    const TuningKey& key) {
  std::vector<PriorWeight> added;
  for (const TuningKey& other : store.keys({.family = family.name})) {
    if (other == key) continue;  // its own results resume the tune instead
    PriorSource source{.name = fmt::format("{} on {}", other.problem, other.device)};
    std::size_t ok = 0;
    for (StoredResult& r : store.latest_results(other)) {
      try {
        source.configs.push_back(
            family.tuning->space.from_json(nlohmann::json::parse(r.config_json)));
      } catch (const std::exception&) {
        continue;  // a config of another version of the family's space
      }
      ok += r.measurement.ok() ? 1 : 0;
      source.results.push_back(std::move(r.measurement));
    }
    if (ok < kMinPriorRows) continue;
    added.push_back({.name = source.name, .rows = source.configs.size()});
    options.priors.push_back(std::move(source));
  }
  return added;
}

}  // namespace cutune
