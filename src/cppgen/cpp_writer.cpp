#include "cppgen/cpp_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>

namespace cutune::cppgen {
namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// C++20's keywords and alternative tokens, and `std`: a member named std hides the namespace in
// the rest of a generated struct.
constexpr std::string_view kReserved[] = {
    "alignas",       "alignof",     "and",
    "and_eq",        "asm",         "auto",
    "bitand",        "bitor",       "bool",
    "break",         "case",        "catch",
    "char",          "char8_t",     "char16_t",
    "char32_t",      "class",       "compl",
    "concept",       "const",       "consteval",
    "constexpr",     "constinit",   "const_cast",
    "continue",      "co_await",    "co_return",
    "co_yield",      "decltype",    "default",
    "delete",        "do",          "double",
    "dynamic_cast",  "else",        "enum",
    "explicit",      "export",      "extern",
    "false",         "float",       "for",
    "friend",        "goto",        "if",
    "inline",        "int",         "long",
    "mutable",       "namespace",   "new",
    "noexcept",      "not",         "not_eq",
    "nullptr",       "operator",    "or",
    "or_eq",         "private",     "protected",
    "public",        "register",    "reinterpret_cast",
    "requires",      "return",      "short",
    "signed",        "sizeof",      "static",
    "static_assert", "static_cast", "struct",
    "switch",        "template",    "this",
    "thread_local",  "throw",       "true",
    "try",           "typedef",     "typeid",
    "typename",      "union",       "unsigned",
    "using",         "virtual",     "void",
    "volatile",      "wchar_t",     "while",
    "xor",           "xor_eq",      "final",
    "override",      "import",      "module",
    "std",
};

}  // namespace

bool is_identifier(std::string_view text) {
  if (text.empty() || is_digit(text[0])) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}

bool is_reserved(std::string_view text) {
  return std::find(std::begin(kReserved), std::end(kReserved), text) != std::end(kReserved);
}

const std::string& checked_identifier(const std::string& name, std::string_view what) {
  if (!is_identifier(name)) {
    throw NameError(
        fmt::format("{} {} is not a C++ identifier (letters, digits and '_', not "
                    "starting with a digit)",
                    what, string_literal(name)));
  }
  if (is_reserved(name)) {
    throw NameError(fmt::format("{} {} is a C++ keyword or a name generated code needs", what,
                                string_literal(name)));
  }
  return name;
}

void check_namespace(std::string_view name, std::string_view who) {
  std::string_view rest = name;
  for (;;) {
    const auto end = rest.find("::");
    const std::string_view part = rest.substr(0, end);
    if (!is_usable_name(part)) {
      throw NameError(
          fmt::format("{}: {} is not a C++ namespace name (part {} is not a usable "
                      "identifier)",
                      who, string_literal(name), string_literal(part)));
    }
    if (end == std::string_view::npos) return;
    rest.remove_prefix(end + 2);
  }
}

std::string mangled_identifier(std::string_view text) {
  std::string word;
  for (const char c : text) {
    const char kept = is_alpha(c) || is_digit(c) ? c : '_';
    if (kept == '_' && (word.empty() || word.back() == '_')) continue;
    word += kept;
  }
  while (!word.empty() && word.back() == '_') word.pop_back();
  if (word.empty() || is_digit(word[0]) || is_reserved(word)) word.insert(0, "k_");
  return word;
}

std::string unique_identifier(std::string_view text, std::set<std::string>& taken) {
  const std::string base = mangled_identifier(text);
  std::string word = base;
  for (int n = 2; !taken.insert(word).second; ++n) word = fmt::format("{}_{}", base, n);
  return word;
}

std::string string_literal(std::string_view text) {
  std::string literal = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    const bool closes_comment = c == '/' && i > 0 && text[i - 1] == '*';
    if (c == '"' || c == '\\' || c == '?') {
      literal += '\\';
      literal += c;
    } else if (byte < 0x20 || byte >= 0x7f || closes_comment) {
      literal += fmt::format("\\{:03o}", byte);
    } else {
      literal += c;
    }
  }
  return literal + '"';
}

std::string string_view_literal(std::string_view text) {
  return fmt::format("std::string_view({}, {})", string_literal(text), text.size());
}

std::string double_literal(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string integer_literal(std::int64_t value) {
  // The literal 9223372036854775808 does not fit, so the minimum cannot be negated into place.
  if (value == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807 - 1)";
  return fmt::format("{}", value);
}

}  // namespace cutune::cppgen
