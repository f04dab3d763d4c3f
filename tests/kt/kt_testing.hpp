// Shared by the Kernel Tuner interop tests: temporary folders, commands, and every config of a
// spec's space with whether its constraints hold.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "cutune/spec.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {

// The spec written to `dir` with an empty kernel source beside it, loaded by the real loader.
inline KernelSpec load_imported(const TempDir& dir, const nlohmann::ordered_json& spec) {
  std::ofstream(dir / spec.at("source").get<std::string>()) << "// kernel\n";
  std::ofstream(dir / "spec.json") << spec.dump(2);
  return load_spec(dir / "spec.json");
}

}  // namespace cutune::testing
