#include "cutune/problem.hpp"

#include <charconv>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace cutune {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// Integers, then reals, then true/false; anything else stays text.
Value parse_scalar(std::string_view text) {
  std::int64_t i = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && end == text.data() + text.size()) return Value(i);
  double d = 0;
  auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (dec == std::errc() && dend == text.data() + text.size()) return Value(d);
  if (text == "true") return Value(true);
  if (text == "false") return Value(false);
  return Value(std::string(text));
}

}  // namespace

Problem Problem::parse(std::string_view text) {
  Problem problem;
  if (trim(text).empty()) return problem;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      throw std::invalid_argument("problem '" + std::string(text) + "' has an empty item");
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument("problem item '" + std::string(item) + "' is not name=value");
    }
    const std::string_view name = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    if (name.empty() || value.empty()) {
      throw std::invalid_argument("problem item '" + std::string(item) +
                                  "' needs both a name and a value");
    }
    if (!problem.args_.emplace(std::string(name), parse_scalar(value)).second) {
      throw std::invalid_argument("problem item '" + std::string(item) + "' repeats '" +
                                  std::string(name) + "'");
    }
  }
  return problem;
}

bool Problem::has(std::string_view name) const { return args_.find(name) != args_.end(); }

const Value& Problem::at(std::string_view name) const {
  const auto it = args_.find(name);
  if (it == args_.end()) {
    throw std::out_of_range("problem '" + canonical() + "' has no argument '" + std::string(name) +
                            "'");
  }
  return it->second;
}

std::string Problem::canonical() const {
  std::string text;
  for (const auto& [name, value] : args_) {
    if (!text.empty()) text += ',';
    text += name;
    text += '=';
    text += value.is_string() ? value.as_string() : value.to_string();
  }
  return text;
}

Device Device::h200() {
  Device d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.smem_per_block = 232448;  // 227 KiB opt-in dynamic shared memory per block on sm_90
  d.sm_count = 132;
  d.regs_per_sm = 65536;
  return d;
}

Device Device::host_cpu() {
  Device d;
  d.name = "host-cpu";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) d.name = std::string(trim(line.substr(colon + 1)));
      break;
    }
  }
  d.sm_count = static_cast<int>(std::thread::hardware_concurrency());
  return d;
}

std::string Device::canonical() const {
  return name + ",cc=" + std::to_string(cc_major) + "." + std::to_string(cc_minor) +
         ",smem=" + std::to_string(smem_per_block) + ",sms=" + std::to_string(sm_count);
}

}  // namespace cutune
