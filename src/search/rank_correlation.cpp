// Spearman's rank correlation, by which a transfer prior is judged against this device's results.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cutune/transfer.hpp"

namespace cutune {
namespace {

std::vector<double> average_ranks(std::span<const double> x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = (static_cast<double>(i + j)) / 2.0;
    i = j + 1;
  }
  return ranks;
}

}  // namespace

double rank_correlation(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size() || a.size() < 3) return 0.0;
  const std::vector<double> ra = average_ranks(a), rb = average_ranks(b);
  const double mean = static_cast<double>(a.size() - 1) / 2.0;
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;
}

}  // namespace cutune
