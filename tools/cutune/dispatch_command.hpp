// Fitting a shape dispatch rule from the command line, shared by `cutune dispatch` and
// `cutune export --dispatch` (both defined in cmd_dispatch.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cutune/dispatch.hpp"

namespace cutune::cli {

struct DispatchArgs {
  std::string db;  // empty: Store::default_path()
  DispatchOptions fit;
  std::string json_path;    // empty: no JSON
  std::string header_path;  // empty: no header
  std::string cpp_namespace = "cutune_dispatch";
  // The kernel spec of a spec family, whose space repairs each candidate for each shape while
  // fitting; a built-in family's own space is found by name. Empty and not built in: no repair.
  std::string spec_path;
};

// The fitting options (--version, --max-configs, --rule, --candidates, --spec) on `command`; --db,
// --family, --device and the outputs are each command's own.
void add_dispatch_fit_options(CLI::App& command, DispatchArgs& args);

// Fits the rule over the store, writes the JSON and/or header (each whole or not at all), and
// prints the held-out report. Throws std::invalid_argument when nothing can be fitted.
void run_dispatch(const DispatchArgs& args);

}  // namespace cutune::cli
