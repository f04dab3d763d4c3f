#include "family_source.hpp"

#include <filesystem>
#include <stdexcept>

namespace cutune::python {

FamilySource family_source(const std::string& spec_or_family) {
  FamilySource source;
  if (std::filesystem::is_regular_file(spec_or_family)) {
    source.spec = std::make_shared<KernelSpec>(load_spec(spec_or_family));
    source.family = spec_family(*source.spec);
    return source;
  }
  const Family* builtin = find_family(spec_or_family);
  if (builtin == nullptr) {
    std::string known;
    for (const std::string& name : family_names()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("'" + spec_or_family +
                                "' is neither a kernel spec file nor a built-in family (" +
                                (known.empty() ? std::string("none in this build") : known) + ")");
  }
  source.family = *builtin;
  return source;
}

Problem problem_for(const FamilySource& source, const std::string& text) {
  const Family& family = source.family;
  if (text.empty()) return family.resolved(family.example_problem);
  if (source.spec) return family.resolved(Problem::parse(text));
  Problem problem = family.example_problem;
  const Problem overrides = Problem::parse(text);
  for (const auto& [name, value] : overrides.args()) problem.set(name, value);
  return family.resolved(problem);
}

}  // namespace cutune::python
