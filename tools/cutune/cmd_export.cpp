// `cutune export`: the best config per tuning key as JSON and as a C++ header to compile in; with
// --dispatch, a family's shape dispatch rule instead (what `cutune dispatch` writes).
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "command.hpp"
#include "cutune/store.hpp"
#include "dispatch_command.hpp"
#include "export_kt.hpp"
#include "store_options.hpp"
#include "write_file.hpp"

namespace {

struct ExportOptions {
  std::string db;
  cutune::KeyFilter filter;
  std::string json_path;
  std::string header_path;
  std::string cpp_namespace = "cutune_tuned";
  bool dispatch = false;
  cutune::cli::DispatchArgs dispatch_args;  // its fitting options; the rest is copied from above
  cutune::cli::KtExportArgs kt;             // Kernel Tuner formats and CSV
};

void export_best(const ExportOptions& options) {
  const std::filesystem::path path = cutune::cli::store_path(options.db);
  auto store = cutune::Store::open(path, cutune::OpenMode::read_only);
  const auto best = store.best_per_key(options.filter);
  // Build both before writing either, so that bad input leaves no file half-updated.
  const std::string json = options.json_path.empty() ? "" : cutune::export_json(best);
  const std::string header =
      options.header_path.empty() ? "" : cutune::export_cpp_header(best, options.cpp_namespace);
  if (!options.json_path.empty()) cutune::cli::write_file(options.json_path, json);
  if (!options.header_path.empty()) cutune::cli::write_file(options.header_path, header);

  std::set<std::string> families;
  for (const auto& result : best) families.insert(result.key.family);
  fmt::print("exported {} tuned config(s) of {} famil{} from {}\n", best.size(), families.size(),
             families.size() == 1 ? "y" : "ies", path.string());
  if (best.empty()) fmt::print(stderr, "cutune: warning: nothing to export: no tuned configs\n");
}

}  // namespace

void cutune::cli::add_export_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "export", "Write the fastest config of every tuning key as JSON and/or a C++ header");
  auto options = std::make_shared<ExportOptions>();
  cutune::cli::add_db_option(*command, options->db);
  cutune::cli::add_key_filter_options(*command, options->filter);
  auto* json = command->add_option("--json", options->json_path, "Write JSON to this file");
  auto* header = command->add_option(
      "--header", options->header_path,
      "Write a C++17 header with constexpr tables and find_<family>() to this file");
  auto* cpp_namespace =
      command
          ->add_option("--namespace", options->cpp_namespace,
                       "C++ namespace of the header's declarations (with --dispatch: "
                       "cutune_dispatch unless given)")
          ->capture_default_str();
  command->add_flag("--dispatch", options->dispatch,
                    "Write the --family's shape dispatch rule (as `cutune dispatch` fits it) "
                    "instead of the best config per key");
  cutune::cli::add_kt_export_options(*command, options->kt);
  auto* dispatch_group = command->add_option_group("dispatch", "With --dispatch");
  cutune::cli::add_dispatch_fit_options(*dispatch_group, options->dispatch_args);
  // One --spec serves both paths (two options of one name: the command's own would take it
  // and the dispatch fit would never see it).
  auto* spec = dispatch_group->get_option("--spec");
  spec->description(
      "Kernel spec of the family: with --dispatch its space repairs each candidate for each "
      "shape; with --kt-cache/--t4 its knob order and enum choices are kept");
  command->callback([options, json, header, cpp_namespace, dispatch_group, spec] {
    if (json->count() == 0 && header->count() == 0 && !options->kt.any()) {
      throw std::invalid_argument(
          "export: nothing to write: pass --json FILE, --header FILE, --kt-cache FILE, --t4 FILE "
          "and/or --csv FILE");
    }
    if (!options->dispatch) {
      if (dispatch_group->count_all() > spec->count()) {
        throw std::invalid_argument(
            "export: --version, --max-configs, --rule and --candidates need --dispatch");
      }
      options->kt.spec = options->dispatch_args.spec_path;
      if (json->count() > 0 || header->count() > 0) export_best(*options);
      if (options->kt.any()) cutune::cli::export_kt(options->db, options->filter, options->kt);
      return;
    }
    if (options->kt.any()) {
      throw std::invalid_argument("export: --kt-cache, --t4 and --csv do not go with --dispatch");
    }
    if (options->filter.family.empty()) {
      throw std::invalid_argument("export --dispatch: pass --family NAME");
    }
    cutune::cli::DispatchArgs args = options->dispatch_args;
    args.db = options->db;
    args.fit.family = options->filter.family;
    args.fit.device = options->filter.device;
    args.json_path = options->json_path;
    args.header_path = options->header_path;
    if (cpp_namespace->count() > 0) args.cpp_namespace = options->cpp_namespace;
    cutune::cli::run_dispatch(args);
  });
}
