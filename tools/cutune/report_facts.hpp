// The facts of one tune's report, as JSON: what the HTML page (report_page.hpp) shows as text and
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
#pragma once

#include <nlohmann/json.hpp>

#include "tune_record.hpp"

namespace cutune::cli {

// Never throws for a tune without a decision or without a correct config: those facts are null.
nlohmann::json report_facts(const TuneRecord& record);

// Which device measured a result, for people: "NVIDIA H200 #1", "cpu worker #0"; "-" when the
// store did not keep it.
std::string measuring_device(const Measurement& m);

}  // namespace cutune::cli
