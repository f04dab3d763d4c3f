// Files embedded into the tool at build time (embed_resource.cmake), so that the report page it
// writes needs nothing installed where it is opened.
#pragma once

#include <string_view>

namespace cutune::report {

std::string_view chart_js();   // Chart.js, from Debian's libjs-chart.js
std::string_view report_js();  // report.js: draws the report's plots from its data
std::string_view report_css();

}  // namespace cutune::report
