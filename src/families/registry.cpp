#include "registry.hpp"

#include <map>
#include <mutex>

#include "gemm/gemm_space.hpp"

namespace cutune {

const std::vector<BuiltinSpace>& builtin_spaces() {
  static const std::vector<BuiltinSpace> spaces = {
      {"gemm", "Hopper bf16/fp16 GEMM (src/kernels/gemm/device/hopper_gemm.cu)",
       gemm_problem(2048, 4096, 4096, "bf16"), Device::h200(), resolve_gemm_problem,
       make_gemm_space},
  };
  return spaces;
}

const BuiltinSpace* find_builtin_space(std::string_view name) {
  for (const BuiltinSpace& space : builtin_spaces()) {
    if (space.name == name) return &space;
  }
  return nullptr;
}

const TuningSpace* find_tuning_space(std::string_view name) {
  const BuiltinSpace* builtin = find_builtin_space(name);
  if (!builtin) return nullptr;
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<TuningSpace>, std::less<>> built;
  std::lock_guard lock(mutex);
  auto it = built.find(name);
  if (it == built.end()) it = built.emplace(builtin->name, builtin->make()).first;
  return it->second.get();
}

std::vector<std::string> tuning_space_names() {
  std::vector<std::string> names;
  for (const BuiltinSpace& space : builtin_spaces()) names.push_back(space.name);
  return names;
}

}  // namespace cutune
