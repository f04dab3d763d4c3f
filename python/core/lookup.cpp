// cutune.Runtime's lookups of spec families: cutune::Runtime with the spec's CPU family added on
// first use, the store read-only and no tune (the default config when the key was never tuned).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
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

  // The spec's family, added to the runtime on first use.
  const FamilySource& loaded(const std::string& spec_or_family);
};

Lookup::Lookup(const std::string& db) : impl_(std::make_unique<Impl>()) {
  impl_->runtime.emplace(impl_->warnings.runtime_options(db));
}

Lookup::~Lookup() = default;

const FamilySource& Lookup::Impl::loaded(const std::string& spec_or_family) {
  auto found = sources.find(spec_or_family);
  if (found == sources.end()) {
    FamilySource source = family_source(spec_or_family);
    if (!source.spec || source.spec->backend != "cpu") {
      throw std::invalid_argument(
          "Lookup: '" + spec_or_family +
          "' is not a CPU kernel spec file (the GEMM family loads through cutune.gemm; CUDA "
          "spec files are not loaded from Python yet)");
    }
    runtime->add_family(cpu_spec_family(*source.spec));
    found = sources.emplace(spec_or_family, std::move(source)).first;
  }
  return found->second;
}

std::string Lookup::get(const std::string& spec_or_family, const std::string& problem_text) {
  const FamilySource& source = impl_->loaded(spec_or_family);
  const Problem problem = problem_for(source, problem_text);
  const Kernel& kernel = impl_->runtime->get(impl_->runtime->query(source.family.name, problem));
  nlohmann::json out{{"family", source.family.name},
                     {"problem", problem.canonical()},
                     {"config", kernel.config().to_json()},
                     {"origin", std::string(to_string(kernel.origin()))}};
  out["warnings"] = impl_->warnings.take();
  return out.dump();
}

void Lookup::run(const std::string& spec_or_family, const std::string& problem_text,
                 const std::vector<Array>& arrays) {
  const FamilySource& source = impl_->loaded(spec_or_family);
  const Problem problem = problem_for(source, problem_text);
  const KernelSpec& spec = *source.spec;
  const std::string where = source.family.name + " " + problem.canonical();
  if (arrays.size() != spec.buffers.size()) {
    std::string names;
    for (const BufferSpec& b : spec.buffers) names += (names.empty() ? "" : ", ") + b.name;
    throw std::invalid_argument(fmt::format("{}: the kernel takes {} arrays ({}), {} given", where,
                                            spec.buffers.size(), names, arrays.size()));
  }
  const Device host = Device::host_cpu();
  std::vector<void*> buffers;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const BufferSpec& b = spec.buffers[i];
    const auto needed = static_cast<std::size_t>(b.count.evaluate(problem, host));
    if (arrays[i].type != b.type) {
      throw std::invalid_argument(fmt::format("{}: buffer '{}' (argument {}) holds {}, given {}",
                                              where, b.name, i, b.type, arrays[i].type));
    }
    if (arrays[i].elements < needed) {
      throw std::invalid_argument(
          fmt::format("{}: buffer '{}' (argument {}) needs {} = {} elements, given {}", where,
                      b.name, i, b.count.text(), needed, arrays[i].elements));
    }
    buffers.push_back(arrays[i].data);
  }
  std::vector<std::int64_t> scalars;
  for (const Expression& e : spec.scalars) {
    scalars.push_back(static_cast<std::int64_t>(std::llround(e.evaluate(problem, host))));
  }
  // A spec with `arguments`: the call shim takes a pointer to each parameter's value.
  std::vector<std::array<std::byte, 8>> values(spec.arguments.size());
  std::vector<void*> parameters;
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    const ArgumentSpec& a = spec.arguments[i];
    const auto put = [&](auto value) { std::memcpy(values[i].data(), &value, sizeof value); };
    const double v = a.buffer >= 0 ? 0 : a.value.evaluate(problem, host);
    if (a.buffer >= 0) put(buffers[static_cast<std::size_t>(a.buffer)]);
    if (a.type == "f32") put(static_cast<float>(v));
    if (a.type == "f64") put(v);
    if (a.type == "i32" || a.type == "u32") put(static_cast<std::uint32_t>(std::llround(v)));
    if (a.type == "i64" || a.type == "u64") put(static_cast<std::int64_t>(std::llround(v)));
    parameters.push_back(values[i].data());
  }
  const Kernel& kernel = impl_->runtime->get(impl_->runtime->query(source.family.name, problem));
  kernel.as<CpuKernel>()(parameters.empty() ? buffers.data() : parameters.data(), scalars.data());
}

}  // namespace cutune::python
