// The statement layer of a tune script (tune_script.hpp): logical lines, then what each does.
#include "kt/tune_script.hpp"

#include <cctype>
#include <functional>

namespace cutune::kt {
namespace {

struct Line {
  int number = 0;  // of its first physical line
  int indent = 0;
  std::string text;
};

// Physical lines joined inside brackets, strings (triple-quoted ones too) and after a backslash;
// comments dropped.
std::vector<Line> logical_lines(std::string_view text) {
  std::vector<Line> out;
  Line current{1, 0, {}};
  int line = 1, depth = 0;
  bool at_start = true;
  std::string quote;  // the open string's delimiter, empty outside strings
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (at_start && c == ' ') {
      ++current.indent;
      continue;
    }
    at_start = false;
    if (!quote.empty()) {
      if (c == '\\' && i + 1 < text.size()) {
        current.text += text.substr(i, 2);
        line += text[++i] == '\n';
        continue;
      }
      if (text.substr(i, quote.size()) == quote) {
        current.text += quote;
        i += quote.size() - 1;
        quote.clear();
        continue;
      }
      line += c == '\n';
      current.text += c;
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = text.substr(i, 3) == std::string(3, c) ? std::string(3, c) : std::string(1, c);
      current.text += quote;
      i += quote.size() - 1;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i, ++line;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == '\n') {
      ++line;
      if (depth > 0) {
        current.text += ' ';
        continue;
      }
      if (current.text.find_first_not_of(" \t\r") != std::string::npos) out.push_back(current);
      current = {line, 0, {}};
      at_start = true;
      continue;
    }
    current.text += c;
  }
  if (current.text.find_first_not_of(" \t\r") != std::string::npos) out.push_back(current);
  return out;
}

bool starts_with_word(const std::string& text, std::string_view word) {
  return text.rfind(word, 0) == 0 &&
         (text.size() == word.size() ||
          !(std::isalnum(static_cast<unsigned char>(text[word.size()])) ||
            text[word.size()] == '_'));
}

// The position of the assignment's '=' (outside brackets and strings, not part of ==, <=, >=,
// !=), or npos.
std::size_t assignment_at(const std::string& text) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == '=' && depth == 0) {
      const char before = i > 0 ? text[i - 1] : ' ';
      const char after = i + 1 < text.size() ? text[i + 1] : ' ';
      if (after == '=' || std::string_view("=<>!+-*/%&|^").find(before) != std::string::npos) {
        if (after == '=') ++i;
        continue;
      }
      return i;
    }
  }
  return std::string::npos;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  const auto last = text.find_last_not_of(" \t\r");
  return first == std::string_view::npos ? "" : std::string(text.substr(first, last - first + 1));
}

bool is_name(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (const char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool is_tune_call(const PyNode& node) {
  return node.kind == PyNode::Kind::call &&
         (node.text == "tune_kernel" || node.text.ends_with(".tune_kernel"));
}

// NAME = value, NAME[KEY] = value; anything else is left unbound.
void assign(const std::string& target, const PyNodePtr& value_node, const Line& line,
            std::string_view origin, ScriptScope& scope) {
  const auto bracket = target.find('[');
  const std::string name = trimmed(target.substr(0, bracket));
  if (!is_name(name)) return;
  nlohmann::json value;
  try {
    value = script_value(value_node, scope);
  } catch (const PythonError& error) {
    if (bracket != std::string::npos) return;
    value = {
        {"unknown", std::string(origin) + ":" + std::to_string(line.number) + ": " + error.what()}};
  }
  if (bracket == std::string::npos) {
    scope.names[name] = value;
    scope.expressions[name] = value_node;
    scope.key_order.erase(name);
    if (value_node->kind == PyNode::Kind::dict) {
      for (std::size_t i = 0; i + 1 < value_node->children.size(); i += 2) {
        const PyNode& key = *value_node->children[i];
        if (key.kind == PyNode::Kind::string) {
          scope.key_order[name].push_back(key.value.get<std::string>());
        }
      }
    }
    const std::string dtype = scalar_dtype_of(*value_node, scope);
    if (dtype.empty()) {
      scope.scalar_dtypes.erase(name);
    } else {
      scope.scalar_dtypes[name] = dtype;
    }
    return;
  }
  // NAME["key"] = value: a dict entry, its insertion order kept.
  const auto close = target.rfind(']');
  if (close == std::string::npos || !scope.names.contains(name) || !scope.names[name].is_object() ||
      scope.names[name].contains("unknown")) {
    return;
  }
  try {
    const nlohmann::json key =
        script_value(parse_python(target.substr(bracket + 1, close - bracket - 1)), scope);
    if (!key.is_string()) return;
    auto& order = scope.key_order[name];
    if (!scope.names[name].contains(key.get<std::string>())) order.push_back(key);
    scope.names[name][key.get<std::string>()] = value;
  } catch (const PythonError&) {
  }
}

}  // namespace

nlohmann::json script_value(const PyNodePtr& node, const ScriptScope& scope) {
  static const PythonHooks hooks = script_hooks();
  const nlohmann::json value = evaluate_python(node, scope.names, hooks);
  // A value the script bound but this reader could not compute, anywhere inside: its reason.
  const std::function<void(const nlohmann::json&)> known = [&](const nlohmann::json& v) {
    if (v.is_object() && v.contains("unknown")) {
      throw PythonError(v.at("unknown").get<std::string>());
    }
    if (v.is_structured()) {
      for (const auto& item : v) known(item);
    }
  };
  known(value);
  return value;
}

ScriptCall run_tune_script(std::string_view text, std::string_view origin, ScriptScope& scope) {
  int skip_deeper_than = -1;  // the indent of a loop whose body is skipped
  for (const Line& line : logical_lines(text)) {
    if (skip_deeper_than >= 0 && line.indent > skip_deeper_than) continue;
    skip_deeper_than = -1;
    std::string statement = trimmed(line.text);
    if (starts_with_word(statement, "for") || starts_with_word(statement, "while")) {
      skip_deeper_than = line.indent;
      continue;
    }
    if (starts_with_word(statement, "with")) {  // with open(PATH) as NAME:
      const auto as = statement.rfind(" as ");
      const auto colon = statement.rfind(':');
      if (as != std::string::npos && colon != std::string::npos && colon > as) {
        assign(statement.substr(as + 4, colon - as - 4), parse_python(statement.substr(4, as - 4)),
               line, origin, scope);
      }
      continue;
    }
    if (starts_with_word(statement, "return")) statement = trimmed(statement.substr(6));
    for (const char* header : {"def", "class", "if", "elif", "else", "try", "except", "finally",
                               "import", "from", "pass", "global", "del", "assert", "raise"}) {
      if (starts_with_word(statement, header)) statement.clear();
    }
    if (statement.empty()) continue;
    const std::size_t equals = assignment_at(statement);
    const std::string expression =
        equals == std::string::npos ? statement : statement.substr(equals + 1);
    PyNodePtr node;
    try {
      node = parse_python(expression);
    } catch (const PythonError& error) {
      if (equals != std::string::npos && is_name(trimmed(statement.substr(0, equals)))) {
        scope.names[trimmed(statement.substr(0, equals))] = {
            {"unknown",
             std::string(origin) + ":" + std::to_string(line.number) + ": " + error.what()}};
      }
      continue;
    }
    if (is_tune_call(*node)) return {line.number, node};
    if (equals != std::string::npos) assign(statement.substr(0, equals), node, line, origin, scope);
  }
  throw PythonError(std::string(origin) + ": no tune_kernel() call");
}

}  // namespace cutune::kt
