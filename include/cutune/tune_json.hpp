// A tune's report as JSON: what `cutune tune --json` prints and the Python package's cutune.tune()
// returns, built in one place so both say the same. Pure functions of their arguments; any thread.
// Throw nothing but std::bad_alloc.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "cutune/store.hpp"
#include "cutune/tune.hpp"

namespace cutune {

// A number as JSON, NaN (unknown) as null: JSON has no NaN.
nlohmann::json json_number(double x);

// When the search first measured a config within `tolerance` (0.02: 2 %) of the winner, both as
// the search measured them; none without a winner.
std::optional<double> seconds_to_within(const TuneReport& report, double tolerance);

// {"key", "store" (when given), "evaluated", "outcomes", "default", "best", "tournament", ...}:
// every field `cutune tune --json` prints but the family comparison and the warm start.
nlohmann::json tune_report_json(const TuneReport& report, const TuningKey& key, const Store* store);

}  // namespace cutune
