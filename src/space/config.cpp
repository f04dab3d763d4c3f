#include "cutune/config.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cutune/space.hpp"

namespace cutune {

Config::Config(const Space& space, std::vector<Value> values)
    : space_(&space), values_(std::move(values)) {
  if (values_.size() != space.knob_count()) {
    throw ConfigError(fmt::format("a config of this space needs {} values, got {}",
                                  space.knob_count(), values_.size()));
  }
  for (std::size_t knob = 0; knob < values_.size(); ++knob) {
    if (!space.fragment(knob).contains(values_[knob], View::full)) {
      throw ConfigError(fmt::format("knob '{}' cannot be {}: legal values are {}",
                                    space.names()[knob], values_[knob].to_string(),
                                    space.fragment(knob).describe(View::full)));
    }
  }
}

const Value& Config::operator[](std::string_view knob) const {
  return values_[space_->index_of(knob)];
}

void Config::set(std::string_view knob, Value value) {
  set(space_->index_of(knob), std::move(value));
}

void Config::set(std::size_t knob, Value value) {
  if (knob >= values_.size()) {
    throw ConfigError(fmt::format("knob index {} is out of range (the space has {} knobs)", knob,
                                  values_.size()));
  }
  if (!space_->fragment(knob).contains(value, View::full)) {
    throw ConfigError(fmt::format("knob '{}' cannot be {}: legal values are {}",
                                  space_->names()[knob], value.to_string(),
                                  space_->fragment(knob).describe(View::full)));
  }
  values_[knob] = std::move(value);
}

std::uint64_t Config::hash() const {
  std::uint64_t state = space_->layout_hash();
  for (const Value& v : values_) state = v.hash(state);
  return state;
}

std::string Config::hash_hex() const { return fmt::format("{:016x}", hash()); }

nlohmann::json Config::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t knob = 0; knob < values_.size(); ++knob) {
    j[space_->names()[knob]] = values_[knob].to_json();
  }
  return j;
}

std::string Config::to_string() const {
  std::string text = "{";
  for (std::size_t knob = 0; knob < values_.size(); ++knob) {
    if (knob > 0) text += ',';
    text += nlohmann::json(space_->names()[knob]).dump();
    text += ':';
    text += values_[knob].to_string();
  }
  return text + "}";
}

PartialConfig Config::to_partial() const {
  PartialConfig partial;
  for (std::size_t knob = 0; knob < values_.size(); ++knob) {
    partial.emplace(space_->names()[knob], values_[knob]);
  }
  return partial;
}

}  // namespace cutune
