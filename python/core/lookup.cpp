// cutune.Runtime's lookups of spec families: cutune::Runtime with the spec's CPU family added on
// first use, the store read-only and no tune (the default config when the key was never tuned).
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cutune/runtime.hpp"
#include "cutune_python.hpp"
#include "family_source.hpp"

namespace cutune::python {

struct Lookup::Impl {
  std::mutex mutex;  // guards warnings
  std::vector<std::string> warnings;
  std::map<std::string, FamilySource, std::less<>> sources;  // by the name the caller gave
  std::optional<Runtime> runtime;
};

Lookup::Lookup(const std::string& db) : impl_(std::make_unique<Impl>()) {
  RuntimeOptions options;
  if (!db.empty()) options.store = db;
  options.policy = Policy::default_now;
  options.on_warning = [impl = impl_.get()](const std::string& warning) {
    const std::lock_guard lock(impl->mutex);
    impl->warnings.push_back(warning);
  };
  impl_->runtime.emplace(std::move(options));
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
  const std::lock_guard lock(impl_->mutex);
  out["warnings"] = impl_->warnings;
  impl_->warnings.clear();
  return out.dump();
}

}  // namespace cutune::python
