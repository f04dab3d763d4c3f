// The tune report page: one self-contained HTML file (the plotting library, Chart.js from Debian's
// libjs-chart.js, is embedded, so it opens offline) that answers which config won, by how much
// over the default and the reference, how sure the tournament is, which knobs mattered and what
// failed and why. The facts are plain HTML text; the plots are drawn from the same data by the
// page's script.
#pragma once

#include <string>

#include "tune_record.hpp"

namespace cutune::cli {

// Never throws for a tune without a decision or without a correct config: the page says so.
std::string report_page(const TuneRecord& record);

}  // namespace cutune::cli
