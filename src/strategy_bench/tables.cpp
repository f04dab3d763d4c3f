// The strategy benchmark's text: per space and strategy the score and evaluations to 0.95 and
// 0.99 of the optimum, the mean over spaces at fixed evaluation counts, the same on the simulated
// clock, and the marks table (fractions at 25/50/100/200 evaluations, censored medians, regret).
#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "bench_data.hpp"
#include "cutune/strategy_metrics.hpp"

namespace cutune::strategy_bench {
namespace {

std::string evaluations_text(std::optional<double> v, std::size_t budget) {
  return v ? fmt::format("{:g}", *v) : fmt::format(">{}", budget);
}

std::optional<double> as_double(std::optional<std::size_t> v) {
  return v ? std::optional<double>(*v) : std::nullopt;
}

// Per space: random search's exact expectation, then each strategy. Random search's medians are
// given past the budget too: the yardstick for "how many times fewer evaluations than random".
std::string space_table(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells,
                        std::size_t budget) {
  std::string text =
      fmt::format("\n{:<28} {:<16} {:>7} {:>8} {:>8} {:>10} {:>8} {:>9}\n", "space", "strategy",
                  "score", "to 0.95", "to 0.99", "final", "seconds", "per call");
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    const BenchSpace& space = spaces[s];
    const std::size_t all = space.ok_times.size() + space.failed;
    const auto random_95 =
        random_search_median_evaluations(space.ok_times, space.failed, 0.95, all);
    const auto random_99 =
        random_search_median_evaluations(space.ok_times, space.failed, 0.99, all);
    text +=
        fmt::format("{:<28} {:<16} {:>7.3f} {:>8} {:>8} {:>10.4f} {:>8}\n", space.label,
                    "random-expected", 0.0, evaluations_text(as_double(random_95), budget),
                    evaluations_text(as_double(random_99), budget), space.random_curve.back(), "-");
    for (std::size_t k = 0; k < names.size(); ++k) {
      const Cell& cell = cells[s][k];
      text +=
          fmt::format("{:<28} {:<16} {:>7.3f} {:>8} {:>8} {:>10.4f} {:>8.2f} {:>9.1f}\n",
                      space.label, names[k], cell.score, evaluations_text(cell.to_95, budget),
                      evaluations_text(cell.to_99, budget), cell.mean_curve.back(), cell.seconds,
                      static_cast<double>(cell.configs) / std::max<std::size_t>(1, cell.calls));
    }
  }
  return text;
}

// The mean score over spaces, the median over spaces of the evaluations to 0.99, and the mean
// fraction of the optimum over spaces at fixed evaluation counts (those in budget).
std::string mean_table(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const Cells& cells, std::size_t budget) {
  std::vector<std::size_t> marks;
  for (std::size_t m : {25, 50, 100, 200}) {
    if (m <= budget) marks.push_back(m);
  }
  const auto at_marks = [&](const auto& curve_of) {
    std::string text;
    for (std::size_t m : marks) {
      double sum = 0.0;
      for (std::size_t s = 0; s < spaces.size(); ++s) sum += curve_of(s)[m - 1];
      text += fmt::format(" {:>7.4f}", sum / spaces.size());
    }
    return text;
  };
  std::string marks_head;
  for (std::size_t m : marks) marks_head += fmt::format(" {:>7}", fmt::format("@{}", m));
  std::vector<double> random_99_per_space;
  for (const BenchSpace& space : spaces) {
    const std::size_t all = space.ok_times.size() + space.failed;
    const auto random_99 =
        random_search_median_evaluations(space.ok_times, space.failed, 0.99, all);
    random_99_per_space.push_back(random_99 ? static_cast<double>(*random_99) : INFINITY);
  }
  std::string text = fmt::format("\n{:<16} {:>10} {:>22}{}\n", "strategy", "mean score",
                                 "median-space to 0.99", marks_head);
  text += fmt::format("{:<16} {:>10.3f} {:>22g}{}\n", "random-expected", 0.0,
                      median(random_99_per_space),
                      at_marks([&](std::size_t s) -> const std::vector<double>& {
                        return spaces[s].random_curve;
                      }));
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<double> scores, to_99;
    for (std::size_t s = 0; s < spaces.size(); ++s) {
      scores.push_back(cells[s][k].score);
      to_99.push_back(cells[s][k].to_99.value_or(INFINITY));
    }
    const double mean_score = std::accumulate(scores.begin(), scores.end(), 0.0) / scores.size();
    const double median_99 = median(to_99);
    text += fmt::format(
        "{:<16} {:>10.3f} {:>22}{}\n", names[k], mean_score,
        std::isfinite(median_99) ? fmt::format("{:g}", median_99) : fmt::format(">{}", budget),
        at_marks(
            [&](std::size_t s) -> const std::vector<double>& { return cells[s][k].mean_curve; }));
  }
  return text;
}

// The same on the simulated clock: the mean fraction over spaces at fixed simulated seconds, and
// the median over spaces of each space's median seconds to 0.99 of the optimum.
std::string clock_table(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells,
                        const StrategyBenchOptions& options) {
  std::string text = fmt::format(
      "\nsimulated clock: {} compile slots, one device; costs {}\n", options.compile_slots,
      options.compile_s > 0 || options.bench_s > 0
          ? fmt::format("compile {} s, benchmark {} s per config (recorded where 0)",
                        options.compile_s, options.bench_s)
          : std::string("as recorded"));
  std::string seconds_head;
  for (double m : kSecondMarks) seconds_head += fmt::format(" {:>7}", fmt::format("@{:g}s", m));
  text += fmt::format("{:<16}{} {:>22}\n", "strategy", seconds_head, "median-space s to 0.99");
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::string row;
    for (std::size_t m = 0; m < std::size(kSecondMarks); ++m) {
      double sum = 0.0;
      for (std::size_t s = 0; s < spaces.size(); ++s) sum += cells[s][k].mean_at_seconds[m];
      row += fmt::format(" {:>7.4f}", sum / spaces.size());
    }
    std::vector<double> to_99;
    for (std::size_t s = 0; s < spaces.size(); ++s)
      to_99.push_back(cells[s][k].median_seconds_to_99);
    const double median_99 = median(to_99);
    text += fmt::format("{:<16}{} {:>22}\n", names[k], row,
                        std::isfinite(median_99) ? fmt::format("{:.1f}", median_99) : "never");
  }
  return text;
}

// Per space and strategy: the mean fraction of the optimum at 25/50/100/200 evaluations, the
// median evaluations to within 2 % of the optimum with the runs that never got there counted as
// censored (the median is ">budget" once half are), and the mean selection regret of what the
// tune deploys; with priors, each one's mean final weight.
std::string marks_table(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells,
                        std::size_t budget) {
  std::string text =
      fmt::format("\n{:<28} {:<20} {:>7} {:>7} {:>7} {:>7} {:>13} {:>9}\n", "space", "strategy",
                  "@25", "@50", "@100", "@200", "to 2% (cens)", "regret");
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    for (std::size_t k = 0; k < names.size(); ++k) {
      const Cell& cell = cells[s][k];
      std::string row;
      for (std::size_t m : {25, 50, 100, 200}) {
        row += m <= budget ? fmt::format(" {:>7.4f}", cell.mean_curve[m - 1]) : "       -";
      }
      std::vector<double> to_98;
      std::size_t censored = 0;
      for (const auto& v : cell.to_98) {
        to_98.push_back(v ? static_cast<double>(*v) : INFINITY);
        censored += v ? 0 : 1;
      }
      const double median_98 = median(to_98);
      const double regret =
          std::accumulate(cell.regret.begin(), cell.regret.end(), 0.0) / cell.regret.size();
      std::string weights;
      for (const auto& [name, sum] : cell.prior_weight)
        weights += fmt::format("  {} {:.2f}", name, sum / cell.regret.size());
      text += fmt::format("{:<28} {:<20}{} {:>13} {:>9.4f}{}\n", spaces[s].label, names[k], row,
                          fmt::format("{} ({})",
                                      std::isfinite(median_98) ? fmt::format("{:g}", median_98)
                                                               : fmt::format(">{}", budget),
                                      censored),
                          regret, weights);
    }
  }
  return text;
}

}  // namespace

std::string tables_text(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells,
                        const StrategyBenchOptions& options) {
  return space_table(spaces, names, cells, options.budget) +
         mean_table(spaces, names, cells, options.budget) +
         clock_table(spaces, names, cells, options) +
         marks_table(spaces, names, cells, options.budget);
}

}  // namespace cutune::strategy_bench
