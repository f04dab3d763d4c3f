// The spec reader's view of the document: each value with its JSON pointer, typed reads that
// blame the value's line and column in a SpecError. Internal to cutune_spec (load.cpp and the
// readers of its sections).
#pragma once

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/spec.hpp"
#include "expression.hpp"
#include "json_locations.hpp"

namespace cutune::spec {

using Json = nlohmann::ordered_json;

inline std::string join(const auto& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

// A value of the document with its JSON pointer, for reading it and for blaming it.
struct Node {
  const Json& json;
  std::string pointer;
};

class Reader {
 public:
  Reader(std::string_view text, std::filesystem::path origin)
      : origin_(std::move(origin)), locations_(text) {}

  [[noreturn]] void fail(const Node& node, const std::string& what) const {
    fail(node.pointer, what);
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const {
    auto at = locations_.find(pointer);
    std::string where = pointer.empty() ? "" : pointer.substr(1) + ": ";
    throw SpecError(origin_.string() + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) + ": " + where + what);
  }

  // Checks that node is an object whose members are all in `allowed`; `context` qualifies the
  // complaint about another member ("for a knob of kind enum").
  void expect_object(const Node& node, std::initializer_list<std::string_view> allowed) const {
    expect_members(node, std::vector<std::string_view>(allowed), "");
  }
  void expect_members(const Node& node, const std::vector<std::string_view>& allowed,
                      const std::string& context) const {
    if (!node.json.is_object()) fail(node, "expected an object, got " + describe(node.json));
    for (const auto& [key, value] : node.json.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(child_pointer(node.pointer, key),
             "unknown field '" + key + "'" + context + " (expected one of: " + join(allowed) + ")");
      }
    }
  }
  static std::optional<Node> member(const Node& node, std::string_view key) {
    auto found = node.json.find(key);
    if (found == node.json.end()) return std::nullopt;
    return Node{*found, child_pointer(node.pointer, key)};
  }
  Node require(const Node& node, std::string_view key) const {
    auto found = member(node, key);
    if (!found) fail(node, "missing field '" + std::string(key) + "'");
    return *found;
  }
  Node element(const Node& node, std::size_t i) const {
    return {node.json.at(i), child_pointer(node.pointer, std::to_string(i))};
  }
  const Json& array(const Node& node) const {
    if (!node.json.is_array()) fail(node, "expected an array, got " + describe(node.json));
    return node.json;
  }

  std::string string(const Node& node) const {
    if (!node.json.is_string()) fail(node, "expected a string, got " + describe(node.json));
    return node.json.get<std::string>();
  }
  std::string string(const Node& node, std::string_view key, std::string fallback) const {
    auto found = member(node, key);
    return found ? string(*found) : fallback;
  }
  std::int64_t integer(const Node& node) const {
    if (!node.json.is_number_integer())
      fail(node, "expected an integer, got " + describe(node.json));
    return node.json.get<std::int64_t>();
  }
  std::optional<std::int64_t> integer(const Node& node, std::string_view key) const {
    auto found = member(node, key);
    if (!found) return std::nullopt;
    return integer(*found);
  }
  double number(const Node& node) const {
    if (!node.json.is_number()) fail(node, "expected a number, got " + describe(node.json));
    return node.json.get<double>();
  }
  double positive(const Node& node, std::string_view key, double fallback) const {
    auto found = member(node, key);
    if (!found) return fallback;
    double value = number(*found);
    if (!(value > 0)) fail(*found, "expected a positive number, got " + found->json.dump());
    return value;
  }
  bool boolean(const Node& node, std::string_view key, bool fallback) const {
    auto found = member(node, key);
    if (!found) return fallback;
    if (!found->json.is_boolean()) {
      fail(*found, "expected true or false, got " + describe(found->json));
    }
    return found->json.get<bool>();
  }
  std::string one_of(const Node& node, std::initializer_list<std::string_view> choices) const {
    auto text = string(node);
    if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
      fail(node, "expected one of " + join(choices) + ", got \"" + text + "\"");
    }
    return text;
  }
  Value value(const Node& node) const {
    try {
      return Value::from_json(nlohmann::json(node.json));
    } catch (const std::exception& error) {
      fail(node, std::string("expected a knob value: ") + error.what());
    }
  }
  std::vector<Value> values(const Node& node) const {
    std::vector<Value> out;
    for (std::size_t i = 0; i < array(node).size(); ++i) out.push_back(value(element(node, i)));
    return out;
  }
  // An expression is a JSON string, or a number standing for itself.
  Expression expression(const Node& node, const Scope& scope) const {
    std::string text;
    if (node.json.is_number()) {
      text = node.json.dump();
    } else if (node.json.is_string()) {
      text = node.json.get<std::string>();
    } else {
      fail(node, "expected an expression (a string or a number), got " + describe(node.json));
    }
    try {
      return compile_expression(text, scope);
    } catch (const std::invalid_argument& error) {
      fail(node, error.what());
    }
  }
  std::filesystem::path file(const Node& node) const {
    std::filesystem::path path = string(node);
    if (path.is_relative()) path = origin_.parent_path() / path;
    path = path.lexically_normal();
    if (!std::filesystem::is_regular_file(path)) fail(node, "no such file: " + path.string());
    return std::filesystem::absolute(path);
  }

  static std::string describe(const Json& json) {
    return std::string(json.type_name()) + " " + json.dump();
  }

 private:
  std::filesystem::path origin_;
  JsonLocations locations_;
};

}  // namespace cutune::spec
