#include "dispatch/dispatch_fitter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cutune {

namespace dispatch {

std::string RuleKind::name() const {
  switch (type) {
    case Type::tree:
      return fmt::format("tree depth {}", depth);
    case Type::chosen_tree:
      return fmt::format("tree depth {} over {} chosen", depth, configs);
    case Type::nearest:
      break;
  }
  return fmt::format("nearest over {} chosen", configs);
}

double geomean(const std::vector<double>& ratios) {
  if (ratios.empty()) return std::nan("");
  double sum = 0;
  for (double r : ratios) sum += std::log(r);
  return std::exp(sum / static_cast<double>(ratios.size()));
}

namespace {

// The inverse of shape::log_feature: tree thresholds in problem units.
double from_log_feature(double y) { return y >= 0 ? std::exp2(y) - 1.0 : 1.0 - std::exp2(-y); }

}  // namespace
}  // namespace dispatch

using dispatch::Cell;

void DispatchFitter::compute_scores() {
  score.assign(shapes.size(), std::vector<double>(hashes.size()));
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    for (std::size_t c = 0; c < hashes.size(); ++c) {
      const Cell& cell = cells[s][c];
      score[s][c] = cell.state == Cell::State::ok       ? std::log(shapes[s].best_ms / cell.time_ms)
                    : cell.state == Cell::State::failed ? std::log(kFailedRatio)
                                                        : std::log(kUnknownRatio);
    }
  }
}

std::vector<int> DispatchFitter::usable(const std::vector<std::size_t>& members) const {
  std::vector<int> out;
  for (std::size_t c = 0; c < hashes.size(); ++c) {
    const bool found = std::any_of(origins[c].begin(), origins[c].end(), [&](std::size_t s) {
      return std::find(members.begin(), members.end(), s) != members.end();
    });
    if (found) out.push_back(static_cast<int>(c));
  }
  return out;
}

std::pair<int, double> DispatchFitter::best_of(const std::vector<double>& sums,
                                               const std::vector<int>& pool) const {
  int best = pool.front();
  for (int c : pool) {
    if (sums[c] > sums[best]) best = c;
  }
  return {best, sums[best]};
}

std::vector<double> DispatchFitter::sums(const std::vector<std::size_t>& members) const {
  std::vector<double> out(hashes.size(), 0.0);
  for (std::size_t s : members) {
    for (std::size_t c = 0; c < out.size(); ++c) out[c] += score[s][c];
  }
  return out;
}

std::vector<int> DispatchFitter::choose(const std::vector<std::size_t>& members,
                                        const std::vector<int>& pool, std::size_t count) const {
  std::vector<int> chosen;
  std::vector<double> covered(shapes.size(), -std::numeric_limits<double>::infinity());
  double before = -std::numeric_limits<double>::infinity();
  while (chosen.size() < count) {
    int best = -1;
    double best_total = -std::numeric_limits<double>::infinity();
    for (int c : pool) {
      if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
      double total = 0;
      for (std::size_t s : members) total += std::max(covered[s], score[s][c]);
      if (total > best_total + 1e-12) {
        best_total = total;
        best = c;
      }
    }
    if (best < 0 || (!chosen.empty() && best_total <= before + 1e-9)) break;
    chosen.push_back(best);
    before = best_total;
    for (std::size_t s : members) covered[s] = std::max(covered[s], score[s][best]);
  }
  return chosen;
}

int DispatchFitter::grow(std::vector<Dispatcher::Node>& tree,
                         const std::vector<std::size_t>& members, const std::vector<int>& pool,
                         int depth) const {
  const int index = static_cast<int>(tree.size());
  tree.push_back({});
  const std::vector<double> total = sums(members);
  const auto [leaf, leaf_score] = best_of(total, pool);
  tree[index].config = leaf;
  if (depth == 0 || members.size() < 2) return index;

  // The split with the highest summed leaf score, by prefix sums along each feature.
  double best_gain = 1e-9;
  int best_feature = -1;
  double best_threshold = 0;
  for (std::size_t f = 0; f < feature_count; ++f) {
    std::vector<std::size_t> order = members;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return shapes[a].x[f] < shapes[b].x[f]; });
    std::vector<double> left(hashes.size(), 0.0), right(hashes.size());
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      for (std::size_t c = 0; c < left.size(); ++c) left[c] += score[order[i]][c];
      const double here = shapes[order[i]].x[f], next = shapes[order[i + 1]].x[f];
      if (here == next) continue;
      for (std::size_t c = 0; c < total.size(); ++c) right[c] = total[c] - left[c];
      const double gain = best_of(left, pool).second + best_of(right, pool).second - leaf_score;
      if (gain > best_gain) {
        best_gain = gain;
        best_feature = static_cast<int>(f);
        best_threshold = (here + next) / 2;
      }
    }
  }
  if (best_feature < 0) return index;
  std::vector<std::size_t> left_members, right_members;
  for (std::size_t s : members) {
    (shapes[s].x[best_feature] <= best_threshold ? left_members : right_members).push_back(s);
  }
  tree[index].feature = best_feature;
  tree[index].threshold = dispatch::from_log_feature(best_threshold);
  tree[index].config = -1;
  const int left_child = grow(tree, left_members, pool, depth - 1);
  const int right_child = grow(tree, right_members, pool, depth - 1);
  tree[index].left = left_child;
  tree[index].right = right_child;
  return index;
}

dispatch::Rule DispatchFitter::fit(const dispatch::RuleKind& kind,
                                   const std::vector<std::size_t>& members) const {
  using Type = dispatch::RuleKind::Type;
  dispatch::Rule rule;
  const std::vector<int> pool = usable(members);
  if (kind.type == Type::tree) {
    grow(rule.tree, members, pool, kind.depth);
    return rule;
  }
  const std::vector<int> chosen = choose(members, pool, kind.configs);
  if (kind.type == Type::chosen_tree) {
    grow(rule.tree, members, chosen, kind.depth);
    return rule;
  }
  for (std::size_t s : members) {
    int label = chosen.front();
    for (int c : chosen) {
      if (score[s][c] > score[s][label]) label = c;
    }
    rule.points.push_back({shapes[s].x, label});
  }
  return rule;
}

int DispatchFitter::pick(const dispatch::Rule& rule, const dispatch::Shape& shape) {
  if (!rule.tree.empty()) return tree_label(rule.tree, shape.raw);
  return nearest_label(rule.points, shape.x);
}

int DispatchFitter::tree_label(const std::vector<Dispatcher::Node>& tree,
                               const std::vector<double>& raw) {
  int node = 0;
  while (tree[node].feature >= 0) {
    const auto& n = tree[node];
    node = raw[n.feature] <= n.threshold ? n.left : n.right;
  }
  return tree[node].config;
}

int DispatchFitter::nearest_label(const std::vector<Dispatcher::Point>& points,
                                  const std::vector<double>& x) {
  int best = 0;
  double best_d = 0;
  for (std::size_t p = 0; p < points.size(); ++p) {
    double d = 0;
    for (std::size_t f = 0; f < x.size(); ++f) {
      const double e = x[f] - points[p].x[f];
      d += e * e;
    }
    if (p == 0 || d < best_d) {
      best = static_cast<int>(p);
      best_d = d;
    }
  }
  return points[best].config;
}

}  // namespace cutune
