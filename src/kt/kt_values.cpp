#include "kt_values.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

namespace cutune::kt {
namespace {

using json = nlohmann::json;

// repr() of a Python str: single quotes unless the text holds one and no double quote.
std::string python_repr_text(const std::string& text) {
  const bool double_quoted =
      text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + quote;
}

std::string python_number(const json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e16) {
      return std::to_string(static_cast<long long>(d)) + ".0";
    }
  }
  return v.dump();
}

std::string python_repr(const json& v) {
  if (v.is_string()) return python_repr_text(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_array()) {
    std::string out = "(";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + python_repr(v[i]);
    return out + (v.size() == 1 ? ",)" : ")");
  }
  return python_number(v);
}

// The integer a problem value's text is, if it is one.
std::optional<long long> integer_of(const std::string& text) {
  long long value = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%lld%n", &value, &used) == 1 &&
      used == static_cast<int>(text.size())) {
    return value;
  }
  return std::nullopt;
}

}  // namespace

json kt_value(const json& value) { return value.is_array() ? json(python_repr(value)) : value; }

std::string python_str(const json& value) {
  return value.is_string() ? value.get<std::string>() : python_repr(value);
}

json problem_size(const std::string& canonical_problem, const std::vector<std::string>& order) {
  std::vector<std::pair<std::string, std::string>> args;  // in the key's order
  std::map<std::string, std::string> by_name;
  std::size_t start = 0;
  while (start < canonical_problem.size()) {
    const std::size_t comma =
        std::min(canonical_problem.find(',', start), canonical_problem.size());
    const std::string item = canonical_problem.substr(start, comma - start);
    if (const auto eq = item.find('='); eq != std::string::npos) {
      args.emplace_back(item.substr(0, eq), item.substr(eq + 1));
      by_name[args.back().first] = args.back().second;
    }
    start = comma + 1;
  }
  std::vector<std::string> names;
  for (const char* axis : {"size_x", "size_y", "size_z"}) {
    if (!by_name.count(axis)) break;
    names.emplace_back(axis);
  }
  if (names.empty()) {
    bool complete = order.size() == args.size();
    for (const std::string& name : order) complete = complete && by_name.count(name) > 0;
    if (complete) {
      names = order;
    } else {
      for (const auto& [name, value] : args) names.push_back(name);
    }
  }
  json sizes = json::array();
  for (const std::string& name : names) {
    const auto integer = integer_of(by_name.at(name));
    if (!integer) return canonical_problem;
    sizes.push_back(*integer);
  }
  if (sizes.empty()) return canonical_problem;
  return sizes.size() == 1 ? sizes[0] : sizes;
}

}  // namespace cutune::kt
