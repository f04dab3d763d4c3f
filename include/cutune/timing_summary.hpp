// The statistics of a candidate's timed repetitions, computed once, where the repetitions are
// (the CPU and CUDA workers, the replay of recorded runs), so that every backend reports the same
// numbers. Header-only: the workers link nothing of cutune.
//
// The robust spread is the interquartile range over the median, (p75 - p25) / median: one
// repetition preempted on a busy machine moves max (and so (max - min) / median, the range
// spread) by any amount, but the quartiles barely. Quantiles interpolate linearly between the
// closest ranks (NumPy's default, R's type 7).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cutune {

// Quantile q (0 <= q <= 1) of samples sorted ascending; NaN when there are none.
inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

// (high - low) / median; NaN when any is unknown (NaN or negative, as the workers' replies
// default). 0 when high == low; NaN when they differ around a median of 0.
inline double relative_spread(double low, double high, double median) {
  if (!(low >= 0 && high >= low && median >= 0)) return NAN;
  if (high == low) return 0;
  return median > 0 ? (high - low) / median : NAN;
}

struct TimingSummary {
  int repetitions = 0;
  double median_ms = NAN;
  double min_ms = NAN;
  double max_ms = NAN;
  double p25_ms = NAN;
  double p75_ms = NAN;
  // Every timed repetition in the order it ran: the store keeps them, and Kernel Tuner's formats
  // carry them (its cache's `times`, T4's `runtimes`).
  std::vector<double> times_ms;

  // (p75 - p25) / median: the robust spread, what cutune shows as "spread".
  double iqr_spread() const { return relative_spread(p25_ms, p75_ms, median_ms); }
  // (max - min) / median: the range spread, at the mercy of a single outlier.
  double range_spread() const { return relative_spread(min_ms, max_ms, median_ms); }

  // Fills a worker's reply: the CPU and CUDA protocols name their timing fields alike.
  template <class Reply>
  void copy_to(Reply& reply) const {
    reply.time_ms = median_ms;
    reply.min_ms = min_ms;
    reply.max_ms = max_ms;
    reply.p25_ms = p25_ms;
    reply.p75_ms = p75_ms;
    reply.repetitions = repetitions;
    reply.times_ms = times_ms;
  }
};

// Summarizes the times of the timed repetitions, in any order.
inline TimingSummary summarize_timings(std::vector<double> samples) {
  TimingSummary summary;
  if (samples.empty()) return summary;
  summary.times_ms = samples;
  std::sort(samples.begin(), samples.end());
  summary.repetitions = static_cast<int>(samples.size());
  summary.median_ms = quantile_of_sorted(samples, 0.5);
  summary.min_ms = samples.front();
  summary.max_ms = samples.back();
  summary.p25_ms = quantile_of_sorted(samples, 0.25);
  summary.p75_ms = quantile_of_sorted(samples, 0.75);
  return summary;
}

}  // namespace cutune
