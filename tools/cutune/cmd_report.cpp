// `cutune report [KEY|TUNE_ID|--last] [--html FILE] [--json]`: one tune's report page, read from
// the store after the fact, so that it works for a tune recorded on another machine (a GPU tune's
// store copied here) as for one run here; --json prints the page's facts instead
// (cutune/report.hpp).
#include <fmt/core.h>

#include <memory>
#include <stdexcept>

#include "command.hpp"
#include "cutune/report.hpp"
#include "cutune/tune_record.hpp"
#include "store_options.hpp"
#include "write_file.hpp"

namespace cutune::cli {
namespace {

using report::load_tune_record;
using report::report_facts;
using report::report_page;
using report::TuneRecord;

struct ReportOptions {
  std::string selector;
  bool last = false;
  std::string db;
  std::string html;  // empty: cutune-report.html, or no page with --json
  bool json = false;
};

void run_report(const ReportOptions& options) {
  if (options.last && !options.selector.empty())
    throw std::invalid_argument("report: give a key or tune id, or --last, not both");
  auto store = Store::open(store_path(options.db), OpenMode::read_only);
  const TuneRecord record = load_tune_record(store, options.selector);
  if (options.json) {
    fmt::print("{}\n",
               report_facts(record).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    if (options.html.empty()) return;
  }
  const std::string html = options.html.empty() ? "cutune-report.html" : options.html;
  write_file(html, report_page(record));
  // With --json, stdout is the JSON document alone.
  fmt::print(options.json ? stderr : stdout, "wrote {}: tune {} of {} {} ({} configs)\n", html,
             record.tune_id, record.key.family, record.key.problem, record.samples.size());
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "Write one tune's report page (HTML, opens offline) from the results store");
  sub->add_option("tune", options->selector,
                  "A tune id, or 4+ leading hex digits of a key's hash (its latest tune); "
                  "none: the latest tune in the store");
  sub->add_flag("--last", options->last, "The tune that recorded the latest result (the default)");
  add_db_option(*sub, options->db);
  sub->add_option("--html", options->html,
                  "Where to write the page (default cutune-report.html; with --json, none unless "
                  "given)");
  sub->add_flag("--json", options->json,
                "Print the page's facts as JSON: winner, speedup over the default and the "
                "reference with the tournament's interval, sureness, ranked knobs, failures, "
                "convergence");
  sub->callback([options] { run_report(*options); });
}

}  // namespace cutune::cli
