// A knob's value: boolean, integer, real, string, or a list of values (permutations, lists of
// fragments). Small, copyable, totally ordered, and printable as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <variant>
#include <vector>

namespace cutune {

class Value {
 public:
  using List = std::vector<Value>;

  Value() : data_(std::int64_t{0}) {}
  Value(bool b) : data_(b) {}  // NOLINT(google-explicit-constructor): values read like literals
  Value(int i) : data_(std::int64_t{i}) {}         // NOLINT
  Value(long i) : data_(std::int64_t{i}) {}        // NOLINT
  Value(long long i) : data_(std::int64_t{i}) {}   // NOLINT
  Value(double d) : data_(d) {}                    // NOLINT
  Value(std::string s) : data_(std::move(s)) {}    // NOLINT
  Value(const char* s) : data_(std::string(s)) {}  // NOLINT
  Value(List list) : data_(std::move(list)) {}     // NOLINT

  bool is_bool() const { return std::holds_alternative<bool>(data_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(data_); }
  bool is_double() const { return std::holds_alternative<double>(data_); }
  bool is_string() const { return std::holds_alternative<std::string>(data_); }
  bool is_list() const { return std::holds_alternative<List>(data_); }

  // Each accessor throws std::invalid_argument naming the actual type when it does not match.
  // Inline: constraints read knobs millions of times a second.
  bool as_bool() const { return get<bool>(); }
  std::int64_t as_int() const { return get<std::int64_t>(); }
  double as_double() const;  // integers convert
  const std::string& as_string() const { return get<std::string>(); }
  const List& as_list() const { return get<List>(); }

  nlohmann::json to_json() const;
  static Value from_json(const nlohmann::json& j);  // throws std::invalid_argument
  std::string to_string() const;                    // compact JSON text

  // Feeds a canonical encoding (type tag, then contents) into a 64-bit hash state, FNV-1a style a
  // word at a time; equal values give equal hashes on every machine and in every run.
  std::uint64_t hash(std::uint64_t state) const;

  friend bool operator==(const Value&, const Value&) = default;
  friend bool operator<(const Value& a, const Value& b) { return a.data_ < b.data_; }

 private:
  using Data = std::variant<bool, std::int64_t, double, std::string, List>;

  template <typename T>
  const T& get() const {
    if (const T* p = std::get_if<T>(&data_)) return *p;
    throw_type_error(Data(std::in_place_type<T>).index());
  }
  [[noreturn]] void throw_type_error(std::size_t wanted_index) const;

  Data data_;
};

}  // namespace cutune
