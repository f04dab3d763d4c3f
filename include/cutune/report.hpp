// The facts of one tune's report, as JSON: what the HTML page (report_page below) shows as text and
// plots, and what `cutune report --json` prints, so that both carry the same facts:
// {"format": "cutune-report", "version": 1, "key", "tune_id", "started", "configs_measured",
//  "configs_failed", "other_tunes_rows",
//  "winner": {"config", "time_ms"} or null,
//  "default": {"time_ms", "search_time_ms"},
//  "speedup": {"ratio", "low", "high", "rounds", "from": "tournament"|"search"} or null,
//  "sureness": {"verdict": "sure"|"not sure"|"default kept", "text"} or null,
//  "reference": {"ratio", "low", "high", "rounds", "median_ms"} or null,
//  "knobs": [{"knob", "ratio", "fastest": {"value", "median_ms", "samples"}, "values"}] ranked,
//  "tournament": {"rounds", "warmup_rounds", "steady_state", "finishing", "finalists"} or null,
//  "failures": [{"outcome", "configs", "first_error_line", "example_config", "log"}],
//  "convergence": [{"evaluation", "seconds", "outcome", "time_ms", "best_ms", "config",
//                   "device"}]}
// Unknown numbers are null. "speedup" and the finalists' ratios are default time / config time
// (above 1: faster than the default), with the tournament's 95% order-statistic interval.
// The same facts as a page: one self-contained HTML file (the plotting library, Chart.js from
// Debian's libjs-chart.js, is embedded, so it opens offline) that answers which config won, by
// how much over the default and the reference, how sure the tournament is, which knobs mattered
// and what failed and why. The facts are plain HTML text; the plots are drawn from the same data
// by the page's script.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cutune/tune_record.hpp"

namespace cutune::report {

// Never throws for a tune without a decision or without a correct config: those facts are null.
nlohmann::json report_facts(const TuneRecord& record);

// Never throws for a tune without a decision or without a correct config: the page says so.
std::string report_page(const TuneRecord& record);

// Which device measured a result, for people: "NVIDIA H200 #1", "cpu worker #0"; "-" when the
// store did not keep it.
std::string measuring_device(const Measurement& m);

}  // namespace cutune::report
