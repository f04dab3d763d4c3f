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

#include "cppgen/cpp_writer.hpp"
#include "cutune/store.hpp"

namespace cutune {
namespace {

using cppgen::double_literal;
using cppgen::integer_literal;
using cppgen::string_literal;
using cppgen::string_view_literal;
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

bool fits_int64(const json& value) {
  if (!value.is_number_integer()) return false;
  return !value.is_number_unsigned() ||
         value.get<std::uint64_t>() <=
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

// --- knob types --------------------------------------------------------------------------------

enum class KnobKind { boolean, integer, number, text, integer_list, json_text };

struct Knob {
  std::string name;  // as in the config and the generated struct
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
      return string_view_literal(config.at(knob.name).get<std::string>());
    case KnobKind::integer_list: {
      std::vector<std::string> elements;
      for (const json& element : config.at(knob.name)) {
        elements.push_back(integer_literal(element.get<std::int64_t>()));
      }
      return fmt::format("{{{{{}}}}}", fmt::join(elements, ", "));
    }
    case KnobKind::json_text:
      return string_view_literal(config.contains(knob.name) ? config.at(knob.name).dump() : "");
  }
  return {};
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
  const std::string knob_context = fmt::format("export: family {}: knob", string_literal(family));
  std::vector<Knob> knobs;
  for (const std::string& name : names) {
    Knob knob{cppgen::checked_identifier(name, knob_context)};
    knob.kind = kind_of(name, configs, knob.list_size);
    knobs.push_back(knob);
  }

  std::string out =
      fmt::format("// Family {}.\nstruct {}_config {{\n", string_literal(family), prefix);
  for (const Knob& knob : knobs) {
    out += fmt::format("  {} {};{}\n", cpp_type(knob), knob.name,
                       knob.kind == KnobKind::json_text ? "  // as JSON text" : "");
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
    out += fmt::format("    {{{}, {}, {}, {}, {}, {}, {{{}}}}},\n",
                       string_view_literal(key.problem), string_view_literal(key.device),
                       string_view_literal(key.toolchain), string_view_literal(key.family_version),
                       string_view_literal(entry.result->config_hash),
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
        {"spread", result.measurement.iqr_spread},
        {"range_spread", result.measurement.spread},
        {"min_ms", result.measurement.min_ms},
        {"max_ms", result.measurement.max_ms},
        {"repetitions", result.measurement.repetitions},
        {"tune_id", result.tune_id},
        {"timestamp", result.timestamp},
    });
  }
  return json{{"format", "cutune-best"}, {"version", 2}, {"results", rows}}.dump(2) + "\n";
}

std::string export_cpp_header(const std::vector<StoredResult>& results,
                              std::string_view cpp_namespace) {
  cppgen::check_namespace(cpp_namespace, "export");
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
    out += family_section(family, cppgen::unique_identifier(family, prefixes), entries);
  }
  return out + fmt::format("\n}}  // namespace {}\n", cpp_namespace);
}

}  // namespace cutune
