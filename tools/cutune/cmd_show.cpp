// `cutune show`: the best config of every tuning key in a results store, as a table or JSON.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "cutune/store.hpp"
#include "store_options.hpp"

namespace {

struct ShowOptions {
  std::string db;
  cutune::KeyFilter filter;
  bool json = false;
};

// Columns as wide as their widest cell; the last column is not padded.
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t column = 0; column < row.size(); ++column) {
      widths[column] = std::max(widths[column], row[column].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t column = 0; column + 1 < row.size(); ++column) {
      line += fmt::format("{:<{}}  ", row[column], widths[column]);
    }
    fmt::print("{}{}\n", line, row.back());
  }
}

std::string optional_number(double value, std::string_view format) {
  return std::isnan(value) ? "-" : fmt::format(fmt::runtime(format), value);
}

void show(const ShowOptions& options) {
  const std::filesystem::path path = cutune::cli::store_path(options.db);
  auto store = cutune::Store::open(path, cutune::OpenMode::read_only);
  const auto best = store.best_per_key(options.filter);
  if (options.json) {
    fmt::print("{}", cutune::export_json(best));
    return;
  }
  if (best.empty()) {
    fmt::print("no tuned configs in {}\n", path.string());
    return;
  }
  std::vector<std::vector<std::string>> rows{{"FAMILY", "VERSION", "PROBLEM", "DEVICE", "TOOLCHAIN",
                                              "TIME_MS", "SPREAD", "MEASURED", "CONFIG"}};
  for (const auto& result : best) {
    const auto& key = result.key;
    rows.push_back({key.family, key.family_version.substr(0, 12), key.problem, key.device,
                    key.toolchain, fmt::format("{:.4f}", result.measurement.time_ms),
                    optional_number(result.measurement.iqr_spread * 100.0, "{:.1f}%"),
                    std::to_string(store.measurement_count(key)), result.config_json});
  }
  print_table(rows);
}

}  // namespace

void cutune::cli::add_show_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "show", "List the fastest measured config of every tuning key in the results store");
  auto options = std::make_shared<ShowOptions>();
  cutune::cli::add_db_option(*command, options->db);
  cutune::cli::add_key_filter_options(*command, options->filter);
  command->add_flag("--json", options->json, "Print JSON (the format of `cutune export --json`)");
  command->callback([options] { show(*options); });
}
