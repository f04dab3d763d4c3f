// Onward moves: a walker that just stepped along a knob of ordered values (a tile side, a stage
// count) often finds the next steps along it faster too, and a search that steps once per round
// then needs a round per step: from a 16-wide tile to a 256-wide one takes four rounds. Offered
// beside the neighbourhood, the config two steps further along the same direction lets a round
// carry the walker two steps (as a pattern search's pattern move extends a move that paid).
#include <optional>

#include "cutune/space.hpp"

namespace cutune {
namespace {

// Knobs of numeric kinds, whose lines are long (a Helion tile side: 16 to 2048). Enums of
// ascending integers (a Kernel Tuner import's few block sizes) are left out: with them the
// recorded spaces' curves lost up to 0.04 at 200 evaluations (docs/strategies.md, "Onward moves").
bool ordered(const Fragment& fragment) {
  return fragment.kind() == "power_of_two" || fragment.kind() == "integer";
}

// The neighbour of `value` one step beyond it, away from `behind`, if the search view holds one.
std::optional<Value> step_beyond(const Fragment& fragment, const Value& behind,
                                 const Value& value) {
  const bool up = value.as_int() > behind.as_int();
  std::optional<Value> next;
  for (Value& v : fragment.neighbours(value, 1)) {
    if ((v.as_int() > value.as_int()) == up && v.as_int() != value.as_int()) next = std::move(v);
  }
  return next;
}

}  // namespace

std::optional<Config> Space::onward(const Config& from, const Config& to) const {
  Config result = to;
  bool moved = false;
  for (std::size_t k = 0; k < fragments_.size(); ++k) {
    if (from.at(k) == to.at(k) || !ordered(*fragments_[k])) continue;
    const std::optional<Value> one = step_beyond(*fragments_[k], from.at(k), to.at(k));
    if (!one) continue;
    std::optional<Value> two = step_beyond(*fragments_[k], to.at(k), *one);
    if (!two) continue;
    result.values_[k] = std::move(*two);
    moved = true;
  }
  if (!moved) return std::nullopt;
  return result;
}

}  // namespace cutune
