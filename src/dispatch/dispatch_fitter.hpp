// The fitting core of shape dispatch (internal to cutune_runtime): a matrix of what each candidate
// config did on each tuned shape, and the rules fitted over it. Rules pick candidates by index;
// Dispatcher::fit (dispatch.cpp) chooses among rule kinds and config counts by leave-one-shape-out.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cutune/dispatch.hpp"

namespace cutune {

// A config that failed on a shape (crash, wrong result, illegal even after repair) must never be
// picked for it.
inline constexpr double kFailedRatio = 1e-3;

namespace dispatch {

// What one candidate config did on one shape (after the space's repair for that shape, when the
// fit was given the space).
struct Cell {
  enum class State { unknown, failed, ok } state = State::unknown;
  double time_ms = 0;
};

struct Shape {
  Problem problem;
  std::vector<double> raw;  // numeric arguments, in feature order
  std::vector<double> x;    // their log features
  std::size_t best = 0;     // candidate index of its winner
  double best_ms = 0;
};

// One kind of rule within a config budget. tree: a decision tree whose leaves pick any candidate
// (at most 2^depth configs); chosen_tree: the same over a greedily chosen set of `configs`
// candidates; nearest: nearest shape, each labelled with the best of such a set.
struct RuleKind {
  enum class Type { tree, chosen_tree, nearest } type = Type::tree;
  int depth = 0;
  std::size_t configs = 1;
  std::string name() const;
};

struct Rule {
  std::vector<Dispatcher::Node> tree;  // config fields are candidate indices here
  std::vector<Dispatcher::Point> points;
};

double geomean(const std::vector<double>& ratios);  // NaN when empty

}  // namespace dispatch

struct DispatchFitter {
  std::vector<dispatch::Shape> shapes;
  std::vector<std::string> hashes;                 // candidate config hashes
  std::vector<nlohmann::json> configs;             // candidate configs
  std::vector<std::vector<std::size_t>> origins;   // per candidate: the shapes whose tune found it
  std::vector<std::vector<dispatch::Cell>> cells;  // [shape][candidate]
  std::vector<std::vector<double>> score;          // log(best / time), penalties for the rest
  std::size_t feature_count = 0;

  void compute_scores();

  // Candidates a fit over `members` may use: those some member's tune found (a held-out shape's
  // own winner is no candidate for it unless another shape found it too).
  std::vector<int> usable(const std::vector<std::size_t>& members) const;
  // Greedy forward selection of at most `count` of `pool`, each maximising the summed best score
  // over `members`; stops early when a config adds nothing.
  std::vector<int> choose(const std::vector<std::size_t>& members, const std::vector<int>& pool,
                          std::size_t count) const;
  int grow(std::vector<Dispatcher::Node>& tree, const std::vector<std::size_t>& members,
           const std::vector<int>& pool, int depth) const;
  dispatch::Rule fit(const dispatch::RuleKind& kind, const std::vector<std::size_t>& members) const;

  // What Dispatcher::pick does, on a shape already in feature form.
  static int pick(const dispatch::Rule& rule, const dispatch::Shape& shape);
  static int tree_label(const std::vector<Dispatcher::Node>& tree, const std::vector<double>& raw);
  static int nearest_label(const std::vector<Dispatcher::Point>& points,
                           const std::vector<double>& x);

 private:
  // The best of `pool` by summed score (ties: the earlier), and that sum.
  std::pair<int, double> best_of(const std::vector<double>& sums,
                                 const std::vector<int>& pool) const;
  std::vector<double> sums(const std::vector<std::size_t>& members) const;
};

}  // namespace cutune
