// The C++ readers of a shape's deployed config, for the test that holds all four readers of an
// untuned shape together (python/tests/test_package.py, beside both Python paths):
//   cutune_untuned_readers STORE EXPORT SPEC PROBLEM
// prints one JSON object: "runtime", cutune::Runtime over STORE as a program deploys it (no tune),
// and "lookup_table", the lookup-only LookupTable over EXPORT with the options a deploying program
// gives it (family_lookup_options); each {"config", "origin", "warnings"}.
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cutune/family.hpp"
#include "cutune/lookup.hpp"
#include "cutune/runtime.hpp"

namespace {

nlohmann::json from_runtime(const std::string& store, const cutune::Family& family,
                            const cutune::Problem& problem) {
  std::vector<std::string> warnings;
  cutune::RuntimeOptions options;
  options.store = store;
  options.policy = cutune::Policy::default_now;
  options.on_warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  cutune::Runtime runtime(options);
  runtime.add_family(family);
  const cutune::Kernel& kernel = runtime.get(runtime.query(family.name, problem));
  return {{"config", kernel.config().to_json()},
          {"origin", std::string(to_string(kernel.origin()))},
          {"warnings", warnings}};
}

nlohmann::json from_lookup_table(const std::string& file, const cutune::Family& family,
                                 const cutune::Problem& problem) {
  std::vector<std::string> warnings;
  cutune::LookupOptions options = cutune::family_lookup_options({family});
  options.on_fallback = [&warnings](const cutune::LookupEvent& e) {
    warnings.push_back(e.message);
  };
  const auto table = cutune::LookupTable::load(file, options);
  const cutune::LookupAnswer& answer =
      table.find(table.prepare(family.name, problem.canonical(), family.device_key));
  return {{"config", answer.config},
          {"origin", std::string(to_string(answer.source))},
          {"warnings", warnings}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s STORE EXPORT SPEC PROBLEM\n", argv[0]);
    return 2;
  }
  try {
    const cutune::FamilySource source = cutune::family_source(argv[3]);
    const cutune::Family family = cutune::cpu_spec_family(*source.spec);
    const cutune::Problem problem = cutune::problem_for(source, argv[4]);
    const nlohmann::json out{{"runtime", from_runtime(argv[1], family, problem)},
                             {"lookup_table", from_lookup_table(argv[2], family, problem)}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
