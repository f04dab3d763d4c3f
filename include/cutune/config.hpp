// A config: one value per knob of a Space, in the space's knob order.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/value.hpp"

namespace cutune {

class Space;

// A partial config: some knobs by name (a heuristic seed, a user's JSON, a stored row).
using PartialConfig = std::map<std::string, Value, std::less<>>;

// An unknown knob or an illegal value. The message names the knob, the value and the legal set
// (or the closest known knob name). A tune drops the candidate, counts it, and goes on.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A complete config. It refers to its Space, which must outlive it (spaces belong to kernel
// families, which live for the whole program).
class Config {
 public:
  // Checks one value per knob, each legal in the full view (throws ConfigError otherwise). Space's
  // draw, decode and complete are the usual ways to get a Config.
  Config(const Space& space, std::vector<Value> values);

  const Space& space() const { return *space_; }
  std::span<const Value> values() const { return values_; }
  std::size_t size() const { return values_.size(); }

  const Value& at(std::size_t knob) const { return values_.at(knob); }
  const Value& operator[](std::string_view knob) const;  // throws ConfigError (closest name)
  std::int64_t get_int(std::string_view knob) const { return (*this)[knob].as_int(); }
  bool get_bool(std::string_view knob) const { return (*this)[knob].as_bool(); }
  const std::string& get_string(std::string_view knob) const { return (*this)[knob].as_string(); }

  // Sets a knob; the value must be legal in the full view (throws ConfigError otherwise).
  void set(std::string_view knob, Value value);
  void set(std::size_t knob, Value value);

  // Stable canonical hash: the same knob values give the same hash in every process and run.
  std::uint64_t hash() const;
  std::string hash_hex() const;  // 16 hex digits

  nlohmann::json to_json() const;  // {"knob": value, ...} (nlohmann::json sorts the keys)
  std::string to_string() const;   // compact JSON text, knobs in the space's order
  PartialConfig to_partial() const;

  friend bool operator==(const Config& a, const Config& b) { return a.values_ == b.values_; }

 private:
  friend class Space;
  struct Unchecked {};
  // For values the Space produced itself (draws, decodes, defaults): skips the legality check that
  // would otherwise dominate the cost of a draw.
  Config(const Space& space, std::vector<Value> values, Unchecked)
      : space_(&space), values_(std::move(values)) {}

  const Space* space_;
  std::vector<Value> values_;
};

}  // namespace cutune
