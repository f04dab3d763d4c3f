#include "runtime/winners.hpp"

#include <memory>

#include "cutune/heuristics.hpp"
#include "cutune/runtime.hpp"
#include "space/repair.hpp"

namespace cutune::runtime {

LookupOptions lookup_options(std::function<const Family*(std::string_view)> family_named) {
  LookupOptions options;
  options.on_fallback = [](const LookupEvent&) {};
  options.repair = [family_named](const std::string& name, const nlohmann::json& config,
                                  const std::string& problem) -> std::optional<nlohmann::json> {
    const Family* f = family_named(name);
    if (f == nullptr) return config;
    Repaired r = repaired(f->tuning->space, config, Problem::parse(problem), f->device);
    if (!r.config) return std::nullopt;
    return r.config->to_json();
  };
  options.default_config = [family_named](const std::string& name, const std::string& problem) {
    const Family* f = family_named(name);
    if (f == nullptr) return nlohmann::json();
    return default_config(*f->tuning, Problem::parse(problem), f->device).to_json();
  };
  return options;
}

LookupTable store_winners(Store& store, const Family& family, LookupOptions options) {
  const auto winners = store.best_per_key({.family = family.name, .device = family.device_key});
  return LookupTable::from_json(nlohmann::json::parse(export_json(winners)), std::move(options),
                                store.path().string());
}

Chosen choose(const LookupTable& table, const Family& family, const Problem& problem) {
  Chosen chosen;
  const std::string text = problem.canonical();
  try {
    chosen.answer = table.find(table.prepare(family.name, text, family.device_key));
  } catch (const LookupError& error) {
    // No device to ask for (a family without a device key): the rule's last resort.
    chosen.answer.source = LookupSource::default_config;
    chosen.answer.message = error.what();
  }
  if (chosen.answer.source == LookupSource::tuned) {
    // A winner as tuned: repaired like a fallback, so that a config of an older space is caught.
    chosen.config =
        repaired(family.tuning->space, chosen.answer.config, problem, family.device).config;
    return chosen;
  }
  if (chosen.answer.source == LookupSource::default_config) {
    chosen.config = default_config(*family.tuning, problem, family.device);
    return chosen;
  }
  try {
    chosen.config = family.tuning->space.from_json(chosen.answer.config);
  } catch (const std::exception&) {
    // A repair gave JSON its own space cannot read back: no config, the caller's default follows.
  }
  return chosen;
}

}  // namespace cutune::runtime

namespace cutune {

LookupOptions family_lookup_options(std::vector<Family> families) {
  auto owned = std::make_shared<const std::vector<Family>>(std::move(families));
  LookupOptions options = runtime::lookup_options([owned](std::string_view name) -> const Family* {
    for (const Family& family : *owned) {
      if (family.name == name) return &family;
    }
    return nullptr;
  });
  options.on_fallback = {};
  return options;
}

}  // namespace cutune
