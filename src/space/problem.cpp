#include "cutune/problem.hpp"

#include <fstream>
#include <stdexcept>
#include <thread>

#include "lookup/problem_text.hpp"

namespace cutune {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

}  // namespace

// The one parser of problem texts (src/lookup/problem_text.cpp), shared with the lookup runtime.
Problem Problem::parse(std::string_view text) {
  Problem problem;
  for (auto& [name, value] : lookup::parse_problem(text)) {
    problem.args_.emplace(name, Value::from_json(value));
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
  lookup::ProblemArgs args;
  for (const auto& [name, value] : args_) args.emplace(name, value.to_json());
  return lookup::canonical_problem(args);
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
