#include <cctype>
#include <sstream>

#include "cppgen/cpp_writer.hpp"
#include "cutune/spec.hpp"

namespace cutune {
namespace {

std::string definition_text(const Value& v) {
  if (v.is_bool()) return v.as_bool() ? "1" : "0";
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_string()) return v.as_string();
  if (v.is_double()) {
    std::ostringstream text;
    text.precision(17);
    text << v.as_double();
    return text.str();
  }
  std::string out = "{";
  for (const auto& element : v.as_list()) {
    if (out.size() > 1) out += ',';
    out += definition_text(element);
  }
  return out + "}";
}

}  // namespace

std::vector<std::string> knob_definitions(const Config& config) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < config.size(); ++k) {
    const std::string& name = config.space().names()[k];
    const Value& v = config.at(k);
    out.push_back(name + "=" + definition_text(v));
    if (v.is_string() && cppgen::is_identifier(name + "_" + v.as_string())) {
      out.push_back(name + "_" + v.as_string() + "=1");
    }
    if (v.is_list()) {
      for (std::size_t i = 0; i < v.as_list().size(); ++i) {
        out.push_back(name + "_" + std::to_string(i) + "=" + definition_text(v.as_list()[i]));
      }
    }
  }
  return out;
}

}  // namespace cutune
