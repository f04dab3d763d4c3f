#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "cutune/family.hpp"
#include "cutune/kernel_tuner.hpp"
#include "cutune/problem.hpp"
#include "export_kt.hpp"
#include "store_options.hpp"
#include "write_file.hpp"

namespace cutune::cli {
namespace {

// Knob order and enum choices from a spec file, without loading its kernel.
KtExportInfo info_from_spec(const std::string& path) {
  KtExportInfo info;
  if (path.empty()) return info;
  std::ifstream in(path);
  // Ordered: the spec's problem order is the order of Kernel Tuner's problem_size.
  const nlohmann::ordered_json spec = nlohmann::ordered_json::parse(in, nullptr, false);
  if (spec.is_discarded() || !spec.contains("knobs")) {
    throw std::invalid_argument("export --spec: " + path + " is not a spec (no knobs)");
  }
  for (const auto& knob : spec.at("knobs")) {
    const std::string name = knob.at("name").get<std::string>();
    info.knob_order.push_back(name);
    if (knob.contains("choices")) info.tune_params[name] = knob.at("choices");
  }
  if (spec.contains("problem") && spec.at("problem").is_object()) {
    for (const auto& [name, value] : spec.at("problem").items()) info.problem_order.push_back(name);
  }
  return info;
}

// The keys' problem, by the one problem rule where the family is known (a --spec, or a built-in
// --family: gemm's "m=2048,n=4096,k=4096" is its key's problem with the example's dtype); as
// written otherwise, as the store cannot rebuild a spec family from its name.
std::string wanted_problem(const KeyFilter& filter, const KtExportArgs& args) {
  if (args.problem.empty()) return "";
  const std::string source = args.spec.empty() ? filter.family : args.spec;
  const auto names = family_names();
  if (!args.spec.empty() || std::find(names.begin(), names.end(), source) != names.end()) {
    return problem_for(family_source(source), args.problem).canonical();
  }
  return Problem::parse(args.problem).canonical();
}

}  // namespace

void add_kt_export_options(CLI::App& command, KtExportArgs& args) {
  command.add_option("--kt-cache", args.kt_cache_path,
                     "Write one key's results as a Kernel Tuner cache file (JSON)");
  command.add_option("--t4", args.t4_path, "Write one key's results as T4 results (JSON)");
  command.add_option("--csv", args.csv_path, "Write every stored measurement as CSV");
  command.add_option("--problem", args.problem, "Only keys of this problem (m=512,n=512,...)");
}

void export_kt(const std::string& db, const KeyFilter& filter, const KtExportArgs& args) {
  auto store = Store::open(store_path(db), OpenMode::read_only);
  std::vector<TuningKey> keys;
  const std::string problem = wanted_problem(filter, args);
  for (const TuningKey& key : store.keys(filter)) {
    if (problem.empty() || key.problem == problem) keys.push_back(key);
  }
  if (!args.csv_path.empty()) {
    std::vector<StoredResult> rows;
    for (const TuningKey& key : keys) {
      for (StoredResult& r : store.results(key)) rows.push_back(std::move(r));
    }
    write_file(args.csv_path, results_csv(rows));
    fmt::print("wrote {} measurement(s) of {} key(s) to {}\n", rows.size(), keys.size(),
               args.csv_path);
  }
  if (args.kt_cache_path.empty() && args.t4_path.empty()) return;
  if (keys.size() != 1) {
    std::string listed;
    for (const TuningKey& key : keys) listed += "\n  " + key.canonical();
    throw std::invalid_argument(fmt::format(
        "export --kt-cache/--t4: a Kernel Tuner file holds one tuning key; {} match{} (narrow "
        "with --family, --device, --problem){}",
        keys.size(), keys.size() == 1 ? "es" : "", listed));
  }
  const std::vector<StoredResult> latest = store.latest_results(keys.front());
  const KtExportInfo info = info_from_spec(args.spec);
  if (!args.kt_cache_path.empty()) {
    write_file(args.kt_cache_path, kt_cache(latest, info).dump(1) + "\n");
    fmt::print("wrote {} config(s) of {} to {}\n", latest.size(), keys.front().canonical(),
               args.kt_cache_path);
  }
  if (!args.t4_path.empty()) {
    write_file(args.t4_path, kt_t4(latest, info).dump(1) + "\n");
    fmt::print("wrote T4 results of {} to {}\n", keys.front().canonical(), args.t4_path);
  }
}

}  // namespace cutune::cli
