// The runtime's side of the one rule for an untuned shape (cutune/lookup.hpp): the same
// LookupTable that reads `cutune export --json` answers it, over the exported file the runtime was
// given or over the store's winners of the family on this device, exported in that format. So
// cutune::Runtime, the lookup-only runtime and both Python paths pick alike. Internal to
// cutune_runtime.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cutune/family.hpp"
#include "cutune/lookup.hpp"

namespace cutune::runtime {

// Options whose repair and default come from the family of that name (nullptr: unknown family,
// the config is kept as tuned and the default is null); fallbacks are not printed: the runtime
// warns with LookupAnswer::message itself.
LookupOptions lookup_options(std::function<const Family*(std::string_view)> family_named);

// What `store` deploys for `family` on its device, as a table (`cutune export --json`'s reader).
LookupTable store_winners(Store& store, const Family& family, LookupOptions options);

// The table's answer for (family, problem) on the family's device: a tuned winner (source tuned),
// the dispatch rule's or nearest shape's repaired config, or the default config. `config` is empty
// when the answer is not legal for the problem after all.
struct Chosen {
  std::optional<Config> config;
  LookupAnswer answer;
};
Chosen choose(const LookupTable& table, const Family& family, const Problem& problem);

}  // namespace cutune::runtime
