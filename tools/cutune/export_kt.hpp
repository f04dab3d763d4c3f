// `cutune export --kt-cache/--t4/--csv`: a tune's stored results in Kernel Tuner's formats and as
// a flat table (cutune/kernel_tuner.hpp), written beside cmd_export.cpp's JSON and header.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cutune/store.hpp"

namespace cutune::cli {

struct KtExportArgs {
  std::string kt_cache_path;
  std::string t4_path;
  std::string csv_path;
  std::string problem;  // only keys of this problem (canonical text)
  std::string spec;     // a spec whose knob order and enum choices the Kernel Tuner files keep
                        // (the export command's one --spec, shared with --dispatch)
  bool any() const { return !kt_cache_path.empty() || !t4_path.empty() || !csv_path.empty(); }
};

void add_kt_export_options(CLI::App& command, KtExportArgs& args);

// Writes the requested files from the store. The Kernel Tuner formats hold one key: throws
// std::invalid_argument listing the keys when the filters leave several or none.
void export_kt(const std::string& db, const KeyFilter& filter, const KtExportArgs& args);

}  // namespace cutune::cli
