// cutune.Runtime's lookups of spec families: cutune::Runtime with the spec's CPU family added on
// first use, the store read-only and no tune (the default config when the key was never tuned).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cutune/family.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "cutune_python.hpp"
#include "warning_log.hpp"

namespace cutune::python {

struct Lookup::Impl {
  WarningLog warnings;                                       // outlives the runtime
  std::map<std::string, FamilySource, std::less<>> sources;  // by the name the caller gave
  std::optional<Runtime> runtime;
};

Lookup::Lookup(const std::string& db) : impl_(std::make_unique<Impl>()) {
  impl_->runtime.emplace(impl_->warnings.runtime_options(db));
}

Lookup::~Lookup() = default;

std::string Lookup::get(const std::string& spec_or_family, const std::string& problem_text) {
  auto found = impl_->sources.find(spec_or_family);
  if (found == impl_->sources.end()) {
    FamilySource source = family_source(spec_or_family);
    if (!source.spec || source.spec->backend != "cpu") {
      throw std::invalid_argument(
          "Lookup: '" + spec_or_family +
          "' is not a CPU kernel spec file (the GEMM family loads through cutune.gemm; CUDA "
          "spec files are not loaded from Python yet)");
    }
    impl_->runtime->add_family(cpu_spec_family(*source.spec));
    found = impl_->sources.emplace(spec_or_family, std::move(source)).first;
  }
  const FamilySource& source = found->second;
  const Problem problem = problem_for(source, problem_text);
  const Kernel& kernel = impl_->runtime->get(impl_->runtime->query(source.family.name, problem));
  nlohmann::json out{{"family", source.family.name},
                     {"problem", problem.canonical()},
                     {"config", kernel.config().to_json()},
                     {"origin", std::string(to_string(kernel.origin()))}};
  out["warnings"] = impl_->warnings.take();
  return out.dump();
}

}  // namespace cutune::python
