// `cutune show`: the best config of every tuning key in a results store, as a table or JSON; with
// --failures, the configs whose latest verdict failed instead, each with its first error line and
// where its full log is.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "command.hpp"
#include "cutune/failure_text.hpp"
#include "cutune/report.hpp"
#include "cutune/store.hpp"
#include "cutune/tune_record.hpp"
#include "store_options.hpp"
#include "text_fit.hpp"

namespace cutune::cli {
namespace {

using report::config_text;
using report::first_error_line;
using report::full_log_path;
using report::key_json;
using report::measuring_device;

struct ShowOptions {
  std::string db;
  KeyFilter filter;
  bool json = false;
  bool failures = false;
};

// The key's hash as `show` lists it and `cutune report` accepts it.
std::string short_hash(const TuningKey& key) { return key.hash().substr(0, 8); }

std::string optional_number(double value, std::string_view format) {
  return std::isnan(value) ? "-" : fmt::format(fmt::runtime(format), value);
}

// Which device measured `m` (ON): "#index" when the key's device already names it (only identical
// devices share a key), so that the problem keeps its width within 120 columns.
std::string measured_on(const Measurement& m, const TuningKey& key) {
  if (m.device >= 0 && !m.device_name.empty() && key.device.starts_with(m.device_name)) {
    return fmt::format("#{}", m.device);
  }
  return measuring_device(m);
}

// The export's document (cutune/store.hpp, export_json) with what the table adds per result: the
// key's short hash (KEY), how many measurements the key holds (ROWS: `measured`) and which device
// measured the deployed result (ON: `measured_on`).
void print_best_json(Store& store, const std::vector<StoredResult>& best) {
  nlohmann::json document = nlohmann::json::parse(export_json(best));
  auto& results = document.at("results");
  for (std::size_t i = 0; i < best.size(); ++i) {
    const Measurement& m = best[i].measurement;
    results[i]["key"] = short_hash(best[i].key);
    results[i]["measured"] = store.measurement_count(best[i].key);
    results[i]["measured_on"] = {
        {"device_index", m.device < 0 ? nlohmann::json() : nlohmann::json(m.device)},
        {"device_name", m.device_name.empty() ? nlohmann::json() : nlohmann::json(m.device_name)},
        {"text", measured_on(m, best[i].key)}};
  }
  fmt::print("{}\n", document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

void show_best(Store& store, const ShowOptions& options) {
  const auto best = store.best_per_key(options.filter);
  if (options.json) {
    print_best_json(store, best);
    return;
  }
  if (best.empty()) {
    fmt::print("no tuned configs in {}\n", store.path().string());
    return;
  }
  std::vector<std::vector<std::string>> rows{
      {"KEY", "FAMILY", "PROBLEM", "DEVICE", "TOOLCHAIN", "TIME_MS", "SPREAD", "ROWS", "ON"}};
  for (const auto& result : best) {
    const auto& key = result.key;
    rows.push_back(
        {short_hash(key), key.family, key.problem, key.device, short_toolchain(key.toolchain),
         fmt::format("{:.4f}", result.measurement.time_ms),
         optional_number(result.measurement.iqr_spread * 100.0, "{:.1f}%"),
         std::to_string(store.measurement_count(key)), measured_on(result.measurement, key)});
  }
  // Each key's config under its row, wrapped whole: a GEMM config is longer than a line, and a
  // cut config could not be deployed by hand.
  const std::vector<std::string> lines = table_lines(rows);
  fmt::print("{}\n", lines.front());
  for (std::size_t i = 0; i < best.size(); ++i) {
    fmt::print("{}\n", lines[i + 1]);
    fmt::print("    {}\n", wrap(config_text(best[i].config_json), kOutputColumns, "    "));
  }
  fmt::print(
      "(SPREAD: (p75 - p25) / median; ROWS: results of the key; ON: the device that measured it; "
      "KEY: `cutune report KEY`)\n");
}

// The configs whose latest verdict under the key (Store::latest_results: a transient failure is
// none) failed, by outcome then config hash.
std::vector<StoredResult> failed_configs(Store& store, const TuningKey& key) {
  std::vector<StoredResult> failed = store.latest_results(key);
  std::erase_if(failed, [](const StoredResult& row) { return row.measurement.ok(); });
  std::sort(failed.begin(), failed.end(), [](const StoredResult& a, const StoredResult& b) {
    return std::tie(a.measurement.outcome, a.config_hash) <
           std::tie(b.measurement.outcome, b.config_hash);
  });
  return failed;
}

void show_failures(Store& store, const ShowOptions& options) {
  nlohmann::json keys = nlohmann::json::array();
  std::size_t count = 0;
  for (const TuningKey& key : store.keys(options.filter)) {
    const std::vector<StoredResult> failed = failed_configs(store, key);
    if (failed.empty()) continue;
    count += failed.size();
    nlohmann::json entries = nlohmann::json::array();
    if (!options.json) {
      fmt::print("{}\n", fit(fmt::format("{} {} {} on {} ({}): {} failed", short_hash(key),
                                         key.family, key.problem, key.device,
                                         short_toolchain(key.toolchain), failed.size()),
                             kOutputColumns));
    }
    for (const StoredResult& row : failed) {
      const Measurement& m = row.measurement;
      const std::string first = first_error_line(m.detail);
      const std::string log = full_log_path(m.detail);
      entries.push_back({{"outcome", to_string(m.outcome)},
                         {"config", nlohmann::json::parse(row.config_json)},
                         {"config_hash", row.config_hash},
                         {"first_error_line", first},
                         {"log", log.empty() ? nlohmann::json() : nlohmann::json(log)},
                         {"detail", m.detail},
                         {"tune_id", row.tune_id},
                         {"timestamp", row.timestamp}});
      if (options.json) continue;
      fmt::print("  {}\n",
                 fit(fmt::format("{:<15} {}", to_string(m.outcome), config_text(row.config_json)),
                     kOutputColumns - 2));
      fmt::print("    {}\n", fit(first, kOutputColumns - 4));
      // A path is no use cut: it is printed whole.
      if (!log.empty()) fmt::print("    full log: {}\n", log);
    }
    nlohmann::json entry = key_json(key);
    entry["failures"] = entries;
    keys.push_back(entry);
  }
  if (options.json) {
    fmt::print("{}\n",
               nlohmann::json{{"format", "cutune-failures"}, {"version", 1}, {"keys", keys}}.dump(
                   2, ' ', false, nlohmann::json::error_handler_t::replace));
  } else if (count == 0) {
    fmt::print("no failed configs in {}\n", store.path().string());
  } else {
    fmt::print("(the whole detail of each: cutune show --failures --json)\n");
  }
}

void show(const ShowOptions& options) {
  auto store = Store::open(store_path(options.db), OpenMode::read_only);
  if (options.failures) {
    show_failures(store, options);
  } else {
    show_best(store, options);
  }
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "show", "List the fastest measured config of every tuning key in the results store");
  auto options = std::make_shared<ShowOptions>();
  add_db_option(*command, options->db);
  add_key_filter_options(*command, options->filter);
  command->add_flag("--json", options->json,
                    "Print JSON: the format of `cutune export --json`, with each result's key, "
                    "measured and measured_on as the table shows them");
  command->add_flag("--failures", options->failures,
                    "List the configs whose latest verdict failed (a transient failure is none), "
                    "with the first error line and where the full log is");
  command->callback([options] { show(*options); });
}

}  // namespace cutune::cli
