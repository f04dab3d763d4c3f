// Evaluating the Python slice (value lists of tune_params) and writing it as spec expressions.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "kt/python_expression.hpp"

namespace cutune::kt {
namespace {

using json = nlohmann::json;
// The names bound, and the caller's hooks.
struct Scope : std::map<std::string, json> {
  const PythonHooks* hooks = nullptr;
};

[[noreturn]] void fail(const std::string& what) { throw PythonError("Python: " + what); }

double number_of(const json& v) {
  if (!v.is_number()) fail("expected a number, got " + v.dump());
  return v.get<double>();
}
bool both_int(const json& a, const json& b) {
  return a.is_number_integer() && b.is_number_integer();
}
json truth(bool b) { return b ? 1 : 0; }

json evaluate(const PyNode& n, Scope& scope);

json arithmetic(const std::string& op, const json& a, const json& b) {
  if (op == "+" && a.is_array() && b.is_array()) {
    json out = a;
    for (const auto& v : b) out.push_back(v);
    return out;
  }
  const double x = number_of(a), y = number_of(b);
  const bool integers = both_int(a, b);
  if (op == "+") return integers ? json(a.get<long long>() + b.get<long long>()) : json(x + y);
  if (op == "-") return integers ? json(a.get<long long>() - b.get<long long>()) : json(x - y);
  if (op == "*") return integers ? json(a.get<long long>() * b.get<long long>()) : json(x * y);
  if (op == "/") return x / y;
  if (y == 0 && (op == "//" || op == "%")) fail("division by zero");
  if (op == "//") {
    return integers ? json(static_cast<long long>(std::floor(x / y))) : json(std::floor(x / y));
  }
  if (op == "%") {
    const double r = x - y * std::floor(x / y);  // Python's sign follows the divisor
    return integers ? json(static_cast<long long>(r)) : json(r);
  }
  if (op == "**") {
    const double p = std::pow(x, y);
    return integers && y >= 0 ? json(static_cast<long long>(std::llround(p))) : json(p);
  }
  fail("unknown operator " + op);
}

bool compare(const std::string& op, const json& a, const json& b) {
  if (op == "==") return a.is_number() && b.is_number() ? number_of(a) == number_of(b) : a == b;
  if (op == "!=") return !compare("==", a, b);
  const double x = number_of(a), y = number_of(b);
  if (op == "<") return x < y;
  if (op == "<=") return x <= y;
  if (op == ">") return x > y;
  return x >= y;
}

bool truthy(const json& v) {
  if (v.is_number()) return number_of(v) != 0;
  if (v.is_string() || v.is_array()) return !v.empty();
  return !v.is_null();
}

json builtin(const PyNode& n, const std::vector<json>& args);

json call(const PyNode& n, Scope& scope) {
  std::vector<json> args;
  std::vector<std::string> keywords;
  for (std::size_t i = 0; i < n.children.size(); ++i) {
    json value = evaluate(*n.children[i], scope);
    const std::string keyword = i < n.ops.size() ? n.ops[i] : "";
    if (keyword == "*" && value.is_array()) {  // f(*sizes)
      for (json& item : value) {
        args.push_back(std::move(item));
        keywords.emplace_back();
      }
      continue;
    }
    args.push_back(std::move(value));
    keywords.push_back(keyword);
  }
  const bool positional =
      std::all_of(keywords.begin(), keywords.end(), [](const auto& k) { return k.empty(); });
  static const std::set<std::string> builtins{"range", "list",  "len", "abs",
                                              "int",   "float", "min", "max"};
  if (positional && builtins.contains(n.text)) {
    try {
      return builtin(n, args);
    } catch (const PythonError&) {
      if (!scope.hooks || !scope.hooks->call) throw;
    }
  }
  if (scope.hooks && scope.hooks->call) {
    // f.read(): a method of a bound name, read as one dotted name by the parser.
    const auto dot = n.text.rfind('.');
    if (dot != std::string::npos && scope.contains(n.text.substr(0, dot))) {
      args.insert(args.begin(), scope.at(n.text.substr(0, dot)));
      keywords.insert(keywords.begin(), "");
      if (auto value = scope.hooks->call(n.text.substr(dot), args, keywords)) return *value;
      fail("unsupported method " + n.text + "()");
    }
    if (auto value = scope.hooks->call(n.text, args, keywords)) return *value;
  }
  if (!positional) fail(n.text + "() takes no keyword arguments here");
  return builtin(n, args);
}

json builtin(const PyNode& n, const std::vector<json>& args) {
  if (n.text == "range") {
    if (args.empty() || args.size() > 3) fail("range takes 1 to 3 arguments");
    for (const auto& a : args) {
      if (!a.is_number_integer()) fail("range needs integers, got " + a.dump());
    }
    const long long start = args.size() > 1 ? args[0].get<long long>() : 0;
    const long long stop = args.size() > 1 ? args[1].get<long long>() : args[0].get<long long>();
    const long long step = args.size() > 2 ? args[2].get<long long>() : 1;
    if (step == 0) fail("range step 0");
    json out = json::array();
    for (long long i = start; step > 0 ? i < stop : i > stop; i += step) {
      out.push_back(i);
      if (out.size() > 1000000) fail("range too long");
    }
    return out;
  }
  if (n.text == "list" && args.size() == 1 && args[0].is_array()) return args[0];
  if (n.text == "len" && args.size() == 1 && args[0].is_array()) return args[0].size();
  if (n.text == "abs" && args.size() == 1) {
    return args[0].is_number_integer() ? json(std::llabs(args[0].get<long long>()))
                                       : json(std::fabs(number_of(args[0])));
  }
  if (n.text == "int" && args.size() == 1) return static_cast<long long>(number_of(args[0]));
  if (n.text == "float" && args.size() == 1) return number_of(args[0]);
  if ((n.text == "min" || n.text == "max") && !args.empty()) {
    const std::vector<json> items =
        args.size() == 1 && args[0].is_array() ? args[0].get<std::vector<json>>() : args;
    if (items.empty()) fail(n.text + "() of nothing");
    json best = items.front();
    for (const auto& v : items) {
      if (n.text == "min" ? number_of(v) < number_of(best) : number_of(v) > number_of(best))
        best = v;
    }
    return best;
  }
  fail("unsupported call " + n.text + "() with " + std::to_string(args.size()) + " argument(s)");
}

json evaluate(const PyNode& n, Scope& scope) {
  switch (n.kind) {
    case PyNode::Kind::number:
    case PyNode::Kind::string:
      return n.value;
    case PyNode::Kind::name: {
      const auto it = scope.find(n.text);
      if (it == scope.end()) fail("unknown name '" + n.text + "' in a constant expression");
      return it->second;
    }
    case PyNode::Kind::unary: {
      const json v = evaluate(*n.children[0], scope);
      if (n.text == "not") return truth(!truthy(v));
      return v.is_number_integer() ? json(-v.get<long long>()) : json(-number_of(v));
    }
    case PyNode::Kind::binary: {
      const json a = evaluate(*n.children[0], scope), b = evaluate(*n.children[1], scope);
      if ((a.is_object() || b.is_object()) && scope.hooks && scope.hooks->arithmetic) {
        if (auto value = scope.hooks->arithmetic(n.text, a, b)) return *value;
      }
      return arithmetic(n.text, a, b);
    }
    case PyNode::Kind::compare: {
      json left = evaluate(*n.children[0], scope);
      for (std::size_t i = 0; i < n.ops.size(); ++i) {
        json right = evaluate(*n.children[i + 1], scope);
        if (!compare(n.ops[i], left, right)) return 0;
        left = std::move(right);
      }
      return 1;
    }
    case PyNode::Kind::boolean: {
      const json left = evaluate(*n.children[0], scope);
      if ((n.text == "and") != truthy(left)) return left;
      return evaluate(*n.children[1], scope);
    }
    case PyNode::Kind::call:
      return call(n, scope);
    case PyNode::Kind::list: {
      json out = json::array();
      for (const auto& child : n.children) out.push_back(evaluate(*child, scope));
      return out;
    }
    case PyNode::Kind::dict: {
      json out = json::object();
      for (std::size_t i = 0; i + 1 < n.children.size(); i += 2) {
        const json key = evaluate(*n.children[i], scope);
        if (!key.is_string()) fail("dict keys must be strings, got " + key.dump());
        out[key.get<std::string>()] = evaluate(*n.children[i + 1], scope);
      }
      return out;
    }
    case PyNode::Kind::index: {
      const json list = evaluate(*n.children[0], scope);
      const json at = evaluate(*n.children[1], scope);
      if (list.is_object() && at.is_string()) {
        if (!list.contains(at.get<std::string>())) fail("no key " + at.dump());
        return list.at(at.get<std::string>());
      }
      if (!list.is_array() || !at.is_number_integer()) fail("bad subscript " + at.dump());
      long long i = at.get<long long>();
      if (i < 0) i += static_cast<long long>(list.size());
      if (i < 0 || i >= static_cast<long long>(list.size()))
        fail("index " + at.dump() + " out of range");
      return list[static_cast<std::size_t>(i)];
    }
    case PyNode::Kind::comprehension: {
      const json items = evaluate(*n.children[1], scope);
      if (!items.is_array()) fail("a comprehension needs a list or range");
      json out = json::array();
      const auto saved = scope.find(n.variable) == scope.end()
                             ? std::optional<json>()
                             : std::optional<json>(scope[n.variable]);
      for (const json& item : items) {
        scope[n.variable] = item;
        if (n.children.size() < 3 || truthy(evaluate(*n.children[2], scope))) {
          out.push_back(evaluate(*n.children[0], scope));
        }
      }
      if (saved)
        scope[n.variable] = *saved;
      else
        scope.erase(n.variable);
      return out;
    }
  }
  fail("unknown node");
}

bool is_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (const char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string spec_text(const PyNode& n) {
  switch (n.kind) {
    case PyNode::Kind::number:
      return n.value.dump();
    case PyNode::Kind::name:
      if (n.text.find('.') != std::string::npos) fail("attribute access (" + n.text + ")");
      return n.text;
    case PyNode::Kind::unary:
      return (n.text == "not" ? "!(" : "-(") + spec_text(*n.children[0]) + ")";
    case PyNode::Kind::binary: {
      const std::string a = spec_text(*n.children[0]), b = spec_text(*n.children[1]);
      if (n.text == "//") return "floor((" + a + ") / (" + b + "))";
      return "(" + a + " " + (n.text == "**" ? "^" : n.text) + " " + b + ")";
    }
    case PyNode::Kind::compare: {
      std::string out;
      for (std::size_t i = 0; i < n.ops.size(); ++i) {
        const PyNode& left = *n.children[i];
        const PyNode& right = *n.children[i + 1];
        std::string a, b;
        // A string enum knob against a literal: the knob's constant for that choice.
        if (left.kind == PyNode::Kind::name && right.kind == PyNode::Kind::string &&
            is_identifier(left.text + "_" + right.value.get<std::string>())) {
          a = left.text, b = left.text + "_" + right.value.get<std::string>();
        } else if (right.kind == PyNode::Kind::name && left.kind == PyNode::Kind::string &&
                   is_identifier(right.text + "_" + left.value.get<std::string>())) {
          a = right.text + "_" + left.value.get<std::string>(), b = right.text;
        } else {
          a = spec_text(left), b = spec_text(right);
        }
        out += (out.empty() ? "" : " && ") + ("(" + a + " " + n.ops[i] + " " + b + ")");
      }
      return n.ops.size() > 1 ? "(" + out + ")" : out;
    }
    case PyNode::Kind::boolean:
      return "(" + spec_text(*n.children[0]) + (n.text == "and" ? " && " : " || ") +
             spec_text(*n.children[1]) + ")";
    case PyNode::Kind::call: {
      static const std::map<std::string, std::string> functions{
          {"min", "min"}, {"max", "max"}, {"abs", "abs"}, {"int", "floor"}};
      const auto it = functions.find(n.text);
      if (it == functions.end()) fail("the spec language has no " + n.text + "()");
      std::string out = it->second + "(";
      for (std::size_t i = 0; i < n.children.size(); ++i) {
        out += (i ? ", " : "") + spec_text(*n.children[i]);
      }
      return out + ")";
    }
    case PyNode::Kind::string:
      fail("a string ('" + n.value.get<std::string>() + "') can only be compared with a knob");
    case PyNode::Kind::list:
    case PyNode::Kind::dict:
    case PyNode::Kind::comprehension:
    case PyNode::Kind::index:
      fail("lists have no place in a spec expression");
  }
  fail("unknown node");
}

}  // namespace

json evaluate_python(const PyNodePtr& node, const json& names, const PythonHooks& hooks) {
  Scope scope;
  scope.hooks = &hooks;
  for (const auto& [name, value] : names.items()) scope[name] = value;
  return evaluate(*node, scope);
}

std::string to_spec_expression(const PyNodePtr& node) { return spec_text(*node); }

}  // namespace cutune::kt
