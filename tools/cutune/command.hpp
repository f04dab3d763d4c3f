// The subcommands of the `cutune` tool, one file each (cmd_*.cpp), each adding itself to the app
// through one function. main.cpp lists them all: a command is one file and one line there, and no
// registration depends on a static initialiser surviving the linker.
#pragma once

#include <CLI/CLI.hpp>

namespace cutune::cli {

// Each adds its subcommand and its callback to the top-level app.
void add_tune_command(CLI::App& app);
void add_space_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_dispatch_command(CLI::App& app);
void add_bench_strategies_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_import_kt_command(CLI::App& app);

// What `cutune --version` prints (generated at build time by version.cmake).
std::string_view version_text();

}  // namespace cutune::cli
