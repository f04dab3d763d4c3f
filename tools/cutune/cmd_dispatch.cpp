// `cutune dispatch`: fits a shape dispatch rule over a family's tuned shapes and writes it as JSON
// (for the runtime) and/or as a C++ header (no database at run time). `cutune export --dispatch`
// runs the same (dispatch_command.hpp).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "command.hpp"
#include "cutune/dispatch.hpp"
#include "cutune/family.hpp"
#include "cutune/spec.hpp"
#include "cutune/store.hpp"
#include "dispatch_command.hpp"
#include "store_options.hpp"
#include "write_file.hpp"

namespace cutune::cli {
namespace {

void print_report(const Dispatcher& d) {
  const auto& r = d.report();
  fmt::print("{} (version {}) on {}: {} tuned shapes, rule {}\n", d.family(), d.version(),
             d.device(), r.shapes.size(), r.rule);
  fmt::print("{:<40} {:>12} {:>12} {:>8}\n", "shape (held out)", "best ms", "picked ms", "ratio");
  for (const auto& s : r.shapes) {
    fmt::print("{:<40} {:>12.5g} {:>12} {:>8}\n", s.problem.canonical(), s.best_ms,
               s.picked_ms ? fmt::format("{:.5g}", *s.picked_ms) : "unknown",
               s.picked_ms ? fmt::format("{:.3f}", s.best_ms / *s.picked_ms) : "-");
  }
  fmt::print(
      "held-out geomean best/picked: {:.4f} over {} shapes ({} picks never measured or failed)\n",
      r.held_out_geomean, r.shapes.size() - r.held_out_unknown, r.held_out_unknown);
  fmt::print("fitted on all shapes: geomean {:.4f} with {} distinct configs\n", r.training_geomean,
             d.config_count());
  for (const auto& line : r.candidates_tried) fmt::print("  tried {}\n", line);
  fmt::print("held-out geomean against the number of configs:\n");
  for (const auto& point : r.curve) {
    fmt::print("  {} config(s): {:.4f} ({}; {} failed picks)\n", point.configs,
               point.held_out_geomean, point.rule, point.failed);
  }
}

}  // namespace

void add_dispatch_fit_options(CLI::App& command, DispatchArgs& args) {
  command.add_option("--version", args.fit.version,
                     "Family version (default: the one with the most tuned shapes)");
  command.add_option("--max-configs", args.fit.max_configs, "Most distinct configs")
      ->check(CLI::Range(1, 64));
  command.add_option("--rule", args.fit.rule, "auto, tree or nearest")
      ->check(CLI::IsMember({"auto", "tree", "nearest"}));
  command
      .add_option("--candidates", args.fit.candidates_per_shape,
                  "Best configs of each tuned shape that become candidates")
      ->check(CLI::Range(1, 64));
  command.add_option("--spec", args.spec_path,
                     "Kernel spec of the family: its space repairs each candidate for each shape "
                     "(a built-in family's is found by name)");
}

void run_dispatch(const DispatchArgs& options) {
  const std::filesystem::path path = store_path(options.db);
  auto store = Store::open(path, OpenMode::read_only);
  // The space that repairs candidates: the spec's, else the built-in family's of that name.
  DispatchOptions fit = options.fit;
  std::optional<FamilySource> source;
  if (const auto names = family_names();
      !options.spec_path.empty() ||
      std::find(names.begin(), names.end(), fit.family) != names.end()) {
    // A built-in family builds the table: throws when its sources are missing.
    source = family_source(options.spec_path.empty() ? fit.family : options.spec_path);
  }
  const Family* family = source ? &source->family : nullptr;
  if (family) {
    if (family->name != fit.family) {
      throw std::invalid_argument("dispatch: --spec is family '" + family->name + "', not '" +
                                  fit.family + "'");
    }
    fit.repair_space = &family->tuning->space;
    fit.repair_device = family->device;
  } else {
    fmt::print(
        "note: family {} is not built in and no --spec was given: candidates are scored as they "
        "stand, without the space's repair\n",
        fit.family);
  }
  const auto dispatcher = Dispatcher::fit(store, fit);
  // Both texts first, so that a failure leaves no file half-updated.
  const std::string json = dispatcher.to_json().dump(2) + "\n";
  const std::string header =
      options.header_path.empty() ? "" : dispatcher.cpp_header(options.cpp_namespace);
  if (!options.json_path.empty()) write_file(options.json_path, json);
  if (!options.header_path.empty()) write_file(options.header_path, header);
  print_report(dispatcher);
}

void add_dispatch_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "dispatch",
      "Fit a rule mapping any problem of a family to one of a few tuned configs, and report how "
      "close its picks come to per-shape tuning on held-out shapes");
  auto options = std::make_shared<DispatchArgs>();
  add_db_option(*command, options->db);
  command->add_option("--family", options->fit.family, "Kernel family")->required();
  command->add_option("--device", options->fit.device,
                      "Device key (default: the one with the most tuned shapes)");
  add_dispatch_fit_options(*command, *options);
  command->add_option("--json", options->json_path, "Write the rule as JSON (read by the runtime)");
  command->add_option("--header", options->header_path,
                      "Write a C++17 header with a constexpr pick() to this file");
  command->add_option("--namespace", options->cpp_namespace, "C++ namespace of the header");
  command->callback([options] { run_dispatch(*options); });
}

}  // namespace cutune::cli
