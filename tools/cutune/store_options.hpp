// Command-line options of the commands that use the results store (tune, show, export, dispatch).
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "cutune/store.hpp"

namespace cutune::cli {

// --db: the results store; empty means Store::default_path().
inline CLI::Option* add_db_option(CLI::App& command, std::string& db) {
  return command.add_option("--db", db,
                            "Results store (default: $CUTUNE_DB, else "
                            "$XDG_CACHE_HOME/cutune/results.db or ~/.cache/cutune/results.db); "
                            "a postgresql://... URL names a shared store on a PostgreSQL server "
                            "(docs/scale-out.md)");
}

// The store --db names, else the default one.
inline std::filesystem::path store_path(const std::string& db) {
  return db.empty() ? Store::default_path() : std::filesystem::path(db);
}

// --family and --device: only the keys of that family and device.
inline void add_key_filter_options(CLI::App& command, KeyFilter& filter) {
  command.add_option("--family", filter.family, "Only keys of this kernel family");
  command.add_option("--device", filter.device, "Only keys of this device");
}

}  // namespace cutune::cli
