// The rank table `cutune tune` prints: the winner first, then the rest by search time. Its time
// columns each compare like with like: every config's search measurement, and for the
// tournament's finalists their median over the paired rounds (another session of timing, often
// faster or slower than the search's as a whole), so rank 1 never shows a tournament time above
// the others' search times.
#pragma once

#include <string>
#include <vector>

#include "cutune/tune.hpp"

namespace cutune::cli {

// The table's lines, header first, at most `show` configs, within kOutputColumns.
std::vector<std::string> rank_table(const TuneReport& report, std::size_t show);

}  // namespace cutune::cli
