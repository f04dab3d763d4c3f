// Turns stored results into files other programs read: a JSON document, and a C++ header that a
// program compiles in to get its tuned configs without a store at run time.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "cutune/store.hpp"

namespace cutune {
namespace {

using nlohmann::json;

json parse_config(const StoredResult& result) {
  json config = json::parse(result.config_json, nullptr, false);
  if (!config.is_object()) {
    throw std::invalid_argument(
        fmt::format("export: config {} of key {} is not a JSON object: '{}'", result.config_hash,
                    result.key.canonical(), result.config_json));
  }
  return config;
}

// --- C++ spelling ------------------------------------------------------------------------------

// "std" too: a member named std would hide the namespace from the members after it.
constexpr std::string_view kCppKeywords[] = {
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

bool is_keyword(std::string_view word) {
  return std::find(std::begin(kCppKeywords), std::end(kCppKeywords), word) !=
         std::end(kCppKeywords);
}

bool is_identifier(std::string_view word) {
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0])) != 0) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// A legal identifier that is not reserved: other characters become '_', no "__", no leading '_'.
std::string identifier(std::string_view name) {
  std::string word;
  for (const char c : name) {
    const char kept = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
    if (kept == '_' && (word.empty() || word.back() == '_')) continue;
    word += kept;
  }
  while (!word.empty() && word.back() == '_') word.pop_back();
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0])) != 0 || is_keyword(word)) {
    word.insert(0, "k_");
  }
  return word;
}

// Makes names distinct by numbering repeats: two knobs "tile-m" and "tile_m" both spell tile_m.
std::string unique_identifier(std::string_view name, std::set<std::string>& taken) {
  const std::string base = identifier(name);
  std::string word = base;
  for (int n = 2; !taken.insert(word).second; ++n) word = fmt::format("{}_{}", base, n);
  return word;
}

// Octal escapes, unlike hex ones, end after three digits whatever follows.
std::string string_literal(std::string_view text) {
  std::string literal = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      literal += '\\';
      literal += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      literal += fmt::format("\\{:03o}", byte);
    } else {
      literal += c;
    }
  }
  return literal + '"';
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

bool fits_int64(const json& value) {
  if (!value.is_number_integer()) return false;
  return !value.is_number_unsigned() ||
         value.get<std::uint64_t>() <=
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

// --- knob types --------------------------------------------------------------------------------

enum class KnobKind { boolean, integer, number, text, integer_list, json_text };

struct Knob {
  std::string name;   // as in the config
  std::string field;  // as in the generated struct
  KnobKind kind = KnobKind::json_text;
  std::size_t list_size = 0;
};

bool is_integer_list(const json& value) {
  return value.is_array() && std::all_of(value.begin(), value.end(), fits_int64);
}

// The narrowest C++ type that holds the knob's value in every config; a knob missing from some
// config, or of mixed kinds, falls back to its JSON text (empty where missing).
KnobKind kind_of(const std::string& name, const std::vector<json>& configs,
                 std::size_t& list_size) {
  const auto all = [&](auto&& predicate) {
    return std::all_of(configs.begin(), configs.end(), [&](const json& config) {
      return config.contains(name) && predicate(config.at(name));
    });
  };
  if (all([](const json& v) { return v.is_boolean(); })) return KnobKind::boolean;
  if (all(fits_int64)) return KnobKind::integer;
  if (all([](const json& v) { return v.is_number(); })) return KnobKind::number;
  if (all([](const json& v) { return v.is_string(); })) return KnobKind::text;
  list_size = configs.front().contains(name) ? configs.front().at(name).size() : 0;
  if (list_size > 0 &&
      all([&](const json& v) { return is_integer_list(v) && v.size() == list_size; })) {
    return KnobKind::integer_list;
  }
  return KnobKind::json_text;
}

std::string cpp_type(const Knob& knob) {
  switch (knob.kind) {
    case KnobKind::boolean:
      return "bool";
    case KnobKind::integer:
      return "std::int64_t";
    case KnobKind::number:
      return "double";
    case KnobKind::integer_list:
      return fmt::format("std::array<std::int64_t, {}>", knob.list_size);
    case KnobKind::text:
    case KnobKind::json_text:
      return "std::string_view";
  }
  return {};
}

std::string cpp_value(const Knob& knob, const json& config) {
  switch (knob.kind) {
    case KnobKind::boolean:
      return config.at(knob.name).get<bool>() ? "true" : "false";
    case KnobKind::integer:
      return integer_literal(config.at(knob.name).get<std::int64_t>());
    case KnobKind::number:
      return double_literal(config.at(knob.name).get<double>());
    case KnobKind::text:
      return string_literal(config.at(knob.name).get<std::string>());
    case KnobKind::integer_list: {
      std::vector<std::string> elements;
      for (const json& element : config.at(knob.name)) {
        elements.push_back(integer_literal(element.get<std::int64_t>()));
      }
      return fmt::format("{{{{{}}}}}", fmt::join(elements, ", "));
    }
    case KnobKind::json_text:
      return string_literal(config.contains(knob.name) ? config.at(knob.name).dump() : "");
  }
  return {};
}

void check_namespace(std::string_view name) {
  std::string_view rest = name;
  for (;;) {
    const auto end = rest.find("::");
    const std::string_view part = rest.substr(0, end);
    if (!is_identifier(part) || is_keyword(part)) {
      throw std::invalid_argument(fmt::format(
          "export: '{}' is not a C++ namespace name (part '{}' is not an identifier)", name, part));
    }
    if (end == std::string_view::npos) return;
    rest.remove_prefix(end + 2);
  }
}

struct Entry {
  const StoredResult* result;
  json config;
};

std::string family_section(std::string_view family, const std::string& prefix,
                           std::vector<Entry>& entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.result->key.problem, a.result->key.device, a.result->measurement.time_ms) <
           std::tie(b.result->key.problem, b.result->key.device, b.result->measurement.time_ms);
  });
  std::vector<json> configs;
  std::set<std::string> names;
  for (const Entry& entry : entries) {
    configs.push_back(entry.config);
    for (const auto& [name, value] : entry.config.items()) names.insert(name);
  }
  // Knobs already spelled as identifiers keep their names; the others yield on a clash.
  std::set<std::string> fields;
  for (const std::string& name : names) {
    if (identifier(name) == name) fields.insert(name);
  }
  std::vector<Knob> knobs;
  for (const std::string& name : names) {
    Knob knob{name, identifier(name) == name ? name : unique_identifier(name, fields)};
    knob.kind = kind_of(name, configs, knob.list_size);
    knobs.push_back(knob);
  }

  std::string out =
      fmt::format("// Family {}.\nstruct {}_config {{\n", string_literal(family), prefix);
  for (const Knob& knob : knobs) {
    out += fmt::format("  {} {};{}\n", cpp_type(knob), knob.field,
                       knob.kind == KnobKind::json_text || knob.name != knob.field
                           ? fmt::format("  // {}{}", string_literal(knob.name),
                                         knob.kind == KnobKind::json_text ? " as JSON text" : "")
                           : "");
  }
  out += fmt::format(
      "}};\n\n"
      "struct {0}_entry {{\n"
      "  std::string_view problem;\n"
      "  std::string_view device;\n"
      "  std::string_view toolchain;\n"
      "  std::string_view family_version;\n"
      "  std::string_view config_hash;\n"
      "  double time_ms;\n"
      "  {0}_config config;\n"
      "}};\n\n"
      "inline constexpr std::array<{0}_entry, {1}> {0}_entries{{{{\n",
      prefix, entries.size());
  for (const Entry& entry : entries) {
    const TuningKey& key = entry.result->key;
    std::vector<std::string> values;
    for (const Knob& knob : knobs) values.push_back(cpp_value(knob, entry.config));
    out +=
        fmt::format("    {{{}, {}, {}, {}, {}, {}, {{{}}}}},\n", string_literal(key.problem),
                    string_literal(key.device), string_literal(key.toolchain),
                    string_literal(key.family_version), string_literal(entry.result->config_hash),
                    double_literal(entry.result->measurement.time_ms), fmt::join(values, ", "));
  }
  out += fmt::format(
      "}}}};\n\n"
      "// The fastest entry for (problem, device), or nullptr when that pair was not tuned.\n"
      "constexpr const {0}_entry* find_{0}(std::string_view problem, std::string_view device) {{\n"
      "  for (const {0}_entry& entry : {0}_entries) {{\n"
      "    if (entry.problem == problem && entry.device == device) return &entry;\n"
      "  }}\n"
      "  return nullptr;\n"
      "}}\n",
      prefix);
  return out;
}

}  // namespace

std::string export_json(const std::vector<StoredResult>& results) {
  json rows = json::array();
  for (const StoredResult& result : results) {
    rows.push_back({
        {"family", result.key.family},
        {"family_version", result.key.family_version},
        {"problem", result.key.problem},
        {"device", result.key.device},
        {"toolchain", result.key.toolchain},
        {"config", parse_config(result)},
        {"config_hash", result.config_hash},
        {"time_ms", result.measurement.time_ms},
        {"iqr_spread", result.measurement.iqr_spread},
        {"spread", result.measurement.spread},
        {"min_ms", result.measurement.min_ms},
        {"max_ms", result.measurement.max_ms},
        {"repetitions", result.measurement.repetitions},
        {"tune_id", result.tune_id},
        {"timestamp", result.timestamp},
    });
  }
  return json{{"format", "cutune-best"}, {"version", 1}, {"results", rows}}.dump(2) + "\n";
}

std::string export_cpp_header(const std::vector<StoredResult>& results,
                              std::string_view cpp_namespace) {
  check_namespace(cpp_namespace);
  std::map<std::string, std::vector<Entry>> families;
  for (const StoredResult& result : results) {
    families[result.key.family].push_back({&result, parse_config(result)});
  }
  std::string out = fmt::format(
      "// Generated by `cutune export`: the fastest measured config per tuning key. Do not edit;\n"
      "// export again after tuning. Needs C++17.\n"
      "#pragma once\n\n"
      "#include <array>\n"
      "#include <cstdint>\n"
      "#include <string_view>\n\n"
      "namespace {} {{\n",
      cpp_namespace);
  std::set<std::string> prefixes;
  for (auto& [family, entries] : families) {
    out += '\n';
    out += family_section(family, unique_identifier(family, prefixes), entries);
  }
  return out + fmt::format("\n}}  // namespace {}\n", cpp_namespace);
}

}  // namespace cutune
