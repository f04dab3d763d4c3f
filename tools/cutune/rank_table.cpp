#include "rank_table.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "text_fit.hpp"

namespace cutune::cli {
namespace {

std::string percent(double fraction) {
  return std::isnan(fraction) ? std::string("-") : fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string ms(double time) { return std::isnan(time) ? "-" : fmt::format("{:.5g}", time); }

}  // namespace

std::vector<std::string> rank_table(const TuneReport& report, std::size_t show) {
  // Each config's search measurement (the first correct one) and its tournament time.
  std::unordered_map<std::uint64_t, const Evaluated*> searched;
  std::vector<const Evaluated*> order;
  for (const Evaluated& e : report.evaluated) {
    if (!e.measurement.ok() || !searched.emplace(e.config.hash(), &e).second) continue;
    order.push_back(&e);
  }
  std::unordered_map<std::uint64_t, double> rounds;
  if (report.tournament) {
    for (const Finalist& f : report.tournament->finalists) {
      if (f.measurement.ok()) rounds.emplace(f.config.hash(), f.measurement.time_ms);
    }
  }
  const std::uint64_t winner = report.best ? report.best->config.hash() : 0;
  // A winner the finishing pass found was never measured by the search: it ranks with "-" there.
  std::optional<Evaluated> unsearched;
  if (report.best && !searched.count(winner)) {
    unsearched = Evaluated{report.best->config, Measurement{}, false, 0.0};
    unsearched->measurement.time_ms = NAN;
    order.push_back(&*unsearched);
  }
  std::stable_sort(order.begin(), order.end(), [&](const Evaluated* a, const Evaluated* b) {
    const bool a_wins = report.best && a->config.hash() == winner;
    const bool b_wins = report.best && b->config.hash() == winner;
    if (a_wins != b_wins) return a_wins;
    return a->measurement.time_ms < b->measurement.time_ms;
  });
  std::vector<std::vector<std::string>> rows = {
      {"rank", "search (ms)", "tournament (ms)", "spread", "config"}};
  for (std::size_t i = 0; i < order.size() && i < show; ++i) {
    const Evaluated& e = *order[i];
    const auto paired = rounds.find(e.config.hash());
    rows.push_back(
        {i == 0 && report.best && e.config.hash() == winner ? "1 (winner)" : std::to_string(i + 1),
         ms(e.measurement.time_ms), paired == rounds.end() ? "-" : ms(paired->second),
         percent(e.measurement.iqr_spread), e.config.to_string()});
  }
  std::vector<std::string> lines = table_lines(rows);
  if (!rounds.empty()) {
    lines.push_back(
        "search: each config's own measurement; tournament: the finalists' medians over the "
        "same paired rounds (rank 1 won them)");
  }
  return lines;
}

}  // namespace cutune::cli
