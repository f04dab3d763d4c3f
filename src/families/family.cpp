#include <fmt/format.h>

#include <stdexcept>

#include "cutune/spec.hpp"
#include "table.hpp"

namespace cutune {

const std::vector<Family>& builtin_families() {
  static const std::vector<Family> built = [] {
    std::vector<Family> out;
    for (const families::Builtin& entry : families::builtin_table()) out.push_back(entry.make());
    return out;
  }();
  return built;
}

const Family* find_family(std::string_view name) {
  for (const Family& family : builtin_families()) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const families::Builtin& entry : families::builtin_table()) {
    names.emplace_back(entry.name);
  }
  return names;
}

Family spec_family(const KernelSpec& spec) {
  std::string known;
  for (const families::SpecBackend& entry : families::spec_backend_table()) {
    if (entry.backend == spec.backend) return entry.make(spec);
    known += fmt::format("{}{}", known.empty() ? "" : ", ", entry.backend);
  }
  if (spec.backend == "host") {
    throw std::invalid_argument(fmt::format(
        "{}: a spec of backend 'host' is tuned by the program that measures its kernels "
        "(cutune.helion, cutune.triton in Python; cutune/host.hpp in C++)",
        spec.path.string()));
  }
  throw std::invalid_argument(
      fmt::format("{}: backend '{}' is not available in this build (it has: {})",
                  spec.path.string(), spec.backend, known));
}

}  // namespace cutune
