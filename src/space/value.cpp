#include "cutune/value.hpp"

#include <bit>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

namespace cutune {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

// FNV-1a taken a 64-bit word at a time (a byte at a time costs 8 dependent multiplies per
// integer, too slow for hashing a million candidates a second); the xor-shift carries the high
// bits of each word back down so that words differing only in high bits still spread.
// Not the content hash (hash/content_hash.hpp), on purpose: Config::hash() is what every store
// keys its rows by (config_hash) and what exported headers and dispatch files name configs by, and
// the store cannot recompute it (it depends on the space's knob order, which a store does not
// hold), so a new algorithm would orphan every stored result. It also stays inline-fast for the
// search's hot path, and no object is ever loaded on its say-so alone.
std::uint64_t feed_word(std::uint64_t state, std::uint64_t word) {
  state ^= word;
  state *= kFnvPrime;
  return state ^ (state >> 29);
}

std::uint64_t feed_bytes(std::uint64_t state, const char* data, std::size_t size) {
  // Bytes are packed little-endian whatever the host, so hashes agree across machines.
  for (std::size_t i = 0; i < size; i += 8) {
    std::uint64_t word = 0;
    for (std::size_t b = 0; b < 8 && i + b < size; ++b) {
      word |= std::uint64_t{static_cast<unsigned char>(data[i + b])} << (8 * b);
    }
    state = feed_word(state, word);
  }
  return state;
}

const char* type_name(std::size_t index) {
  static constexpr const char* kNames[] = {"a boolean", "an integer", "a real", "a string",
                                           "a list"};
  return kNames[index];
}

}  // namespace

void Value::throw_type_error(std::size_t wanted_index) const {
  throw std::invalid_argument(std::string("expected ") + type_name(wanted_index) + " value, got " +
                              type_name(data_.index()));
}

double Value::as_double() const {
  if (const auto* i = std::get_if<std::int64_t>(&data_)) return static_cast<double>(*i);
  return get<double>();
}

nlohmann::json Value::to_json() const {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, List>) {
          nlohmann::json array = nlohmann::json::array();
          for (const Value& item : v) array.push_back(item.to_json());
          return array;
        } else {
          return nlohmann::json(v);
        }
      },
      data_);
}

Value Value::from_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::boolean:
      return Value(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return Value(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(INT64_MAX)) {
        throw std::invalid_argument("integer " + j.dump() + " does not fit in 64 signed bits");
      }
      return Value(static_cast<std::int64_t>(u));
    }
    case nlohmann::json::value_t::number_float:
      return Value(j.get<double>());
    case nlohmann::json::value_t::string:
      return Value(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      List items;
      items.reserve(j.size());
      for (const auto& item : j) items.push_back(from_json(item));
      return Value(std::move(items));
    }
    default:
      throw std::invalid_argument("a knob value must be a boolean, number, string or array, got " +
                                  (j.is_null() ? std::string("null") : "object " + j.dump()));
  }
}

std::string Value::to_string() const { return to_json().dump(); }

std::uint64_t Value::hash(std::uint64_t state) const {
  state = feed_word(state, data_.index());
  return std::visit(
      [state](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return feed_word(state, v ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return feed_word(state, static_cast<std::uint64_t>(v));
        } else if constexpr (std::is_same_v<T, double>) {
          // -0.0 == 0.0, so both must hash alike.
          return feed_word(state, std::bit_cast<std::uint64_t>(v == 0.0 ? 0.0 : v));
        } else if constexpr (std::is_same_v<T, std::string>) {
          return feed_bytes(feed_word(state, v.size()), v.data(), v.size());
        } else {
          std::uint64_t s = feed_word(state, v.size());
          for (const Value& item : v) s = item.hash(s);
          return s;
        }
      },
      data_);
}

}  // namespace cutune
