#include <fmt/core.h>

#include <exception>

#include "command.hpp"
#include "text_fit.hpp"

namespace {

// Every subcommand, in the order `cutune --help` lists them.
constexpr void (*kCommands[])(CLI::App&) = {
    cutune::cli::add_bench_strategies_command,
    cutune::cli::add_dispatch_command,
    cutune::cli::add_export_command,
    cutune::cli::add_import_kt_command,
    cutune::cli::add_report_command,
    cutune::cli::add_show_command,
    cutune::cli::add_space_command,
    cutune::cli::add_tune_command,
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cutune: an autotuner for compute kernels"};
  app.formatter(cutune::cli::fitting_help_formatter());
  app.set_version_flag("--version", std::string(cutune::cli::version_text()));
  app.require_subcommand(1);
  for (const auto add : kCommands) add(app);
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
