// The one rule that turns what a user types (a built-in family's name or a kernel spec file's
// path, and a problem text) into a family and the problem its key is built from: `cutune tune` and
// the Python package (through tune_session) and `cutune space` all call it, so that one name and
// one problem mean one key everywhere.
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "cutune/family.hpp"
#include "cutune/session.hpp"
#include "cutune/spec.hpp"

namespace cutune {

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

Problem problem_for(const FamilySource& source, std::string_view text) {
  const Family& family = source.family;
  if (text.find_first_not_of(" \t") == std::string_view::npos) {
    return family.resolved(family.example_problem);
  }
  if (source.spec) return family.resolved(Problem::parse(text));
  // A built-in family's arguments are many and mostly fixed (dtype, layouts): the given ones
  // override its example's one by one.
  Problem problem = family.example_problem;
  const Problem overrides = Problem::parse(text);  // kept: the loop reads its arguments
  for (const auto& [name, value] : overrides.args()) problem.set(name, value);
  return family.resolved(problem);
}

TuneSession tune_session(const std::string& spec_or_family, std::string_view problem,
                         TuneSessionOptions options) {
  FamilySource source = family_source(spec_or_family);
  Problem resolved = problem_for(source, problem);
  return TuneSession(std::move(source), std::move(resolved), std::move(options));
}

}  // namespace cutune
