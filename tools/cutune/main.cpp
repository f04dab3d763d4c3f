#include <fmt/core.h>

#include <exception>

#include "command.hpp"

namespace cutune::cli {
std::vector<CommandInstaller>& command_installers() {
  static std::vector<CommandInstaller> installers;
  return installers;
}
}  // namespace cutune::cli

int main(int argc, char** argv) {
  CLI::App app{"cutune: an autotuner for compute kernels"};
  app.require_subcommand(1);
  for (const auto& install : cutune::cli::command_installers()) install(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "cutune: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
