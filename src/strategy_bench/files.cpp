// The strategy benchmark's files: the summary per space and strategy, the mean fraction of the
// optimum over evaluations and over simulated seconds (CSV), and the curves plotted (SVG).
#include <fmt/core.h>

#include <algorithm>

#include "bench_data.hpp"

namespace cutune::strategy_bench {
namespace {

// A round step for about `count` ticks over [0, span]: 1, 2 or 5 times a power of ten.
double tick_step(double span, int count) {
  const double raw = span / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

}  // namespace

std::string summary_csv(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells) {
  std::string csv =
      "space,strategy,score,median_evaluations_to_0.95,median_evaluations_to_0.99,"
      "mean_final_fraction,seconds,median_simulated_seconds_to_0.99\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    for (std::size_t s = 0; s < spaces.size(); ++s) {
      const Cell& cell = cells[s][k];
      csv += fmt::format("{},{},{:.6f},{},{},{:.6f},{:.3f},{}\n", spaces[s].label, names[k],
                         cell.score, cell.to_95 ? fmt::format("{:g}", *cell.to_95) : "",
                         cell.to_99 ? fmt::format("{:g}", *cell.to_99) : "", cell.mean_curve.back(),
                         cell.seconds,
                         std::isfinite(cell.median_seconds_to_99)
                             ? fmt::format("{:.1f}", cell.median_seconds_to_99)
                             : "");
    }
  }
  return csv;
}

std::string seconds_csv(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells) {
  std::string csv = "space,strategy,simulated_seconds,mean_fraction_of_optimum\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    for (std::size_t m = 0; m < std::size(kSecondMarks); ++m) {
      for (std::size_t s = 0; s < spaces.size(); ++s) {
        csv += fmt::format("{},{},{:g},{:.6f}\n", spaces[s].label, names[k], kSecondMarks[m],
                           cells[s][k].mean_at_seconds[m]);
      }
    }
  }
  return csv;
}

std::string curves_csv(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const Cells& cells) {
  std::string csv = "space,strategy,evaluation,mean_fraction_of_optimum\n";
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    for (std::size_t i = 0; i < spaces[s].random_curve.size(); ++i) {
      csv += fmt::format("{},random-expected,{},{:.6f}\n", spaces[s].label, i + 1,
                         spaces[s].random_curve[i]);
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
      const auto& curve = cells[s][k].mean_curve;
      for (std::size_t i = 0; i < curve.size(); ++i) {
        csv += fmt::format("{},{},{},{:.6f}\n", spaces[s].label, names[k], i + 1, curve[i]);
      }
    }
  }
  return csv;
}

// One panel per space: x is the evaluation, y the mean fraction of the optimum, from a floor
// below the lowest curve (a tenth), with round ticks on both axes and both axes titled.
std::string curves_svg(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const Cells& cells) {
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                  "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  constexpr double kWidth = 380, kHeight = 280, kLeft = 70, kTop = 30, kGap = 30;
  const double panel_w = kWidth - kLeft - 10, panel_h = kHeight - kTop - 50;
  const double total_w = kGap + spaces.size() * kWidth;
  const double total_h = kHeight + 30 + 18 * (names.size() + 1);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"{0}\" height=\"{1}\" "
      "fill=\"white\"/>\n",
      total_w, total_h);
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    const double x0 = kGap + s * kWidth + kLeft, y0 = kTop;
    const std::size_t length = spaces[s].random_curve.size();
    double lowest = 1.0;
    for (double f : spaces[s].random_curve) lowest = std::min(lowest, f);
    for (const Cell& cell : cells[s])
      for (double f : cell.mean_curve) lowest = std::min(lowest, f);
    const double bottom = std::clamp(std::floor(lowest * 10) / 10, 0.0, 0.9);
    const auto px = [&](double i) { return x0 + panel_w * i / std::max<double>(1, length); };
    const auto py = [&](double f) {
      return y0 + panel_h * (1.0 - (std::max(f, bottom) - bottom) / (1.0 - bottom));
    };
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", x0, y0 - 10,
                       spaces[s].label);
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", x0,
        y0, panel_w, panel_h);
    // Ticks at least 18 px apart, so that no two labels overlap.
    const double y_step = tick_step(1.0 - bottom, static_cast<int>(panel_h / 18));
    for (double f = bottom; f <= 1.0 + 1e-9; f += y_step) {
      svg += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
          "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.{6}f}</text>\n",
          x0, x0 + panel_w, py(f), x0 - 4, py(f) + 4, f, y_step < 0.1 ? 2 : 1);
    }
    const double x_step = std::max(1.0, tick_step(static_cast<double>(length), 5));
    for (double i = 0; i <= static_cast<double>(length) + 1e-9; i += x_step) {
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#888\"/>"
          "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
          px(i), y0 + panel_h, y0 + panel_h + 4, y0 + panel_h + 16, i);
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">evaluations</text>\n",
                       x0 + panel_w / 2, y0 + panel_h + 34);
    svg += fmt::format(
        "<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">mean fraction of "
        "the optimum</text>\n",
        x0 - 44, y0 + panel_h / 2);
    const auto polyline = [&](const std::vector<double>& curve, const char* colour,
                              const char* dash) {
      std::string points;
      for (std::size_t i = 0; i < curve.size(); ++i) {
        points += fmt::format("{:.1f},{:.1f} ", px(static_cast<double>(i + 1)), py(curve[i]));
      }
      return fmt::format(
          "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"{}\" "
          "points=\"{}\"/>\n",
          colour, dash, points);
    };
    svg += polyline(spaces[s].random_curve, "#000", "4,3");
    for (std::size_t k = 0; k < names.size(); ++k) {
      svg += polyline(cells[s][k].mean_curve, colours[k % std::size(colours)], "none");
    }
  }
  double legend_y = kHeight + 20;
  svg += fmt::format("<text x=\"{}\" y=\"{}\">- - - random search (expected)</text>\n", kGap,
                     legend_y);
  for (std::size_t k = 0; k < names.size(); ++k) {
    legend_y += 18;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">━━ {}</text>\n", kGap, legend_y,
                       colours[k % std::size(colours)], names[k]);
  }
  return svg + "</svg>\n";
}

}  // namespace cutune::strategy_bench
