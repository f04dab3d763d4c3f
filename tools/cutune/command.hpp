// Subcommands of the `cutune` tool register themselves here, one file each (cmd_*.cpp), so that
// adding a command never touches main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace cutune::cli {

// Called with the top-level app; adds a subcommand and its callback.
using CommandInstaller = std::function<void(CLI::App&)>;

std::vector<CommandInstaller>& command_installers();

struct RegisterCommand {
  explicit RegisterCommand(CommandInstaller installer) {
    command_installers().push_back(std::move(installer));
  }
};

}  // namespace cutune::cli
