// Dispatcher::fit: for each config budget, every rule kind scored leave-one-shape-out and fitted
// on every shape; the best (budget, kind) deploys that whole-set fit. And Dispatcher::pick, shared
// by the runtime.
#include "cutune/dispatch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "dispatch/dispatch_gather.hpp"
#include "space/log_shape.hpp"
#include "space/repair.hpp"

namespace cutune {

namespace {

using dispatch::Cell;
using dispatch::RuleKind;

struct Scored {
  RuleKind kind;
  double objective = 0;  // mean held-out score, penalties included
  double training = 0;   // mean score of the rule fitted on every shape, on those shapes
  std::vector<int> picks;
  dispatch::Rule whole;  // the rule fitted on every shape: the one deployed if this kind wins

  bool better_than(const Scored& other) const {
    if (std::abs(objective - other.objective) > 1e-9) return objective > other.objective;
    return training > other.training + 1e-9;
  }
};

// The kinds of rule with at most `configs` configs that `rule` ("auto", "tree", "nearest")
// allows, simplest first. Without numeric arguments only the constant rule is possible.
std::vector<RuleKind> kinds_for(std::size_t configs, const std::string& rule, bool has_features) {
  using Type = RuleKind::Type;
  std::vector<RuleKind> out;
  if (!has_features) return {{Type::tree, 0, 1}};
  if (rule != "nearest") {
    for (int depth = 0; (std::size_t{1} << depth) <= configs; ++depth) {
      out.push_back({Type::tree, depth, std::size_t{1} << depth});
    }
    // With the configs chosen first, a deeper tree may reuse them across its leaves.
    if (configs >= 2) {
      for (int depth = 1; depth <= 3; ++depth) out.push_back({Type::chosen_tree, depth, configs});
    }
  }
  if (rule != "tree") out.push_back({Type::nearest, 0, configs});
  if (out.empty()) out.push_back({Type::tree, 0, 1});
  return out;
}

Scored score_kind(const DispatchFitter& fitter, const RuleKind& kind) {
  const std::size_t n = fitter.shapes.size();
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  Scored sc;
  sc.kind = kind;
  if (n < 2) {  // nothing to hold out: in-sample
    sc.picks.push_back(DispatchFitter::pick(fitter.fit(kind, all), fitter.shapes[0]));
  } else {
    for (std::size_t held = 0; held < n; ++held) {
      std::vector<std::size_t> rest;
      for (std::size_t s = 0; s < n; ++s) {
        if (s != held) rest.push_back(s);
      }
      sc.picks.push_back(DispatchFitter::pick(fitter.fit(kind, rest), fitter.shapes[held]));
    }
  }
  for (std::size_t s = 0; s < n; ++s) sc.objective += fitter.score[s][sc.picks[s]] / n;
  sc.whole = fitter.fit(kind, all);
  for (std::size_t s = 0; s < n; ++s) {
    sc.training += fitter.score[s][DispatchFitter::pick(sc.whole, fitter.shapes[s])] / n;
  }
  return sc;
}

// The held-out geomean of a scored kind over its picks that ran, and how many did not.
std::pair<double, std::size_t> held_out(const DispatchFitter& fitter, const Scored& sc) {
  std::vector<double> ratios;
  std::size_t failed = 0;
  for (std::size_t s = 0; s < fitter.shapes.size(); ++s) {
    const Cell& cell = fitter.cells[s][sc.picks[s]];
    if (cell.state == Cell::State::ok) {
      ratios.push_back(fitter.shapes[s].best_ms / cell.time_ms);
    } else {
      ++failed;
    }
  }
  return {dispatch::geomean(ratios), failed};
}

}  // namespace

Dispatcher Dispatcher::fit(Store& store, const DispatchOptions& options) {
  if (options.rule != "auto" && options.rule != "tree" && options.rule != "nearest") {
    throw std::invalid_argument("dispatch: unknown rule '" + options.rule +
                                "' (auto, tree, nearest)");
  }
  if (options.max_configs == 0) throw std::invalid_argument("dispatch: max_configs must be >= 1");
  dispatch::Gathered g = dispatch::gather(store, options);
  const DispatchFitter& fitter = g.fitter;
  const std::size_t n = fitter.shapes.size();

  Dispatcher out;
  DispatchReport& report = out.report_;
  std::map<std::string, Scored> scored_by_name;  // a kind allowed by several budgets, once
  std::optional<Scored> chosen;
  for (std::size_t budget = 1; budget <= options.max_configs; ++budget) {
    std::optional<Scored> best;
    for (const RuleKind& kind : kinds_for(budget, options.rule, !g.features.empty())) {
      auto it = scored_by_name.find(kind.name());
      if (it == scored_by_name.end()) {
        it = scored_by_name.emplace(kind.name(), score_kind(fitter, kind)).first;
        report.candidates_tried.push_back(fmt::format(
            "{}: held-out score {:.4f} (geomean of best/picked; an unknown pick counts {}, a "
            "failed one {})",
            kind.name(), std::exp(it->second.objective), kUnknownRatio, kFailedRatio));
      }
      if (!best || it->second.better_than(*best)) best = it->second;
    }
    const auto [geomean, failed] = held_out(fitter, *best);
    report.curve.push_back({budget, best->kind.name(), geomean, failed});
    // A larger budget must earn its place: better held out (or, held out equal, in-sample).
    if (!chosen || best->better_than(*chosen)) chosen = *best;
  }

  // The report: held-out picks of the chosen rule.
  for (std::size_t s = 0; s < n; ++s) {
    const int c = chosen->picks[s];
    DispatchShape row{fitter.shapes[s].problem, fitter.hashes[fitter.shapes[s].best],
                      fitter.shapes[s].best_ms, fitter.hashes[c], std::nullopt};
    if (fitter.cells[s][c].state == Cell::State::ok) row.picked_ms = fitter.cells[s][c].time_ms;
    report.shapes.push_back(std::move(row));
  }
  std::tie(report.held_out_geomean, report.held_out_unknown) = held_out(fitter, *chosen);

  // The final rule on every shape, its configs renumbered in order of first use.
  const dispatch::Rule& rule = chosen->whole;
  std::map<int, int> renumber;
  auto compact = [&](int candidate) {
    auto [it, inserted] = renumber.try_emplace(candidate, static_cast<int>(out.configs_.size()));
    if (inserted) {
      out.configs_.push_back(fitter.configs[candidate]);
      out.config_hashes_.push_back(fitter.hashes[candidate]);
    }
    return it->second;
  };
  out.tree_ = rule.tree;
  for (auto& node : out.tree_) {
    if (node.feature < 0) node.config = compact(node.config);
  }
  out.points_ = rule.points;
  for (auto& point : out.points_) point.config = compact(point.config);
  report.rule = fmt::format("{} ({} configs used)", chosen->kind.name(), out.configs_.size());
  std::vector<double> training;
  for (std::size_t s = 0; s < n; ++s) {
    const int c = DispatchFitter::pick(rule, fitter.shapes[s]);
    if (fitter.cells[s][c].state == Cell::State::ok) {
      training.push_back(fitter.shapes[s].best_ms / fitter.cells[s][c].time_ms);
    }
  }
  report.training_geomean = dispatch::geomean(training);

  out.family_ = options.family;
  out.version_ = g.version;
  out.device_ = g.device;
  out.features_ = g.features;
  out.fixed_ = g.fixed;
  return out;
}

std::size_t Dispatcher::pick(const Problem& problem) const {
  for (const auto& [name, value] : fixed_) {
    if (!problem.has(name) || problem.at(name) != value) {
      throw std::invalid_argument(fmt::format(
          "dispatch rule of {} is for {}={}; problem '{}' has {}", family_, name,
          value.is_string() ? value.as_string() : value.to_string(), problem.canonical(),
          problem.has(name) ? problem.at(name).to_string() : "no such argument"));
    }
  }
  auto x = shape::log_point(problem, features_);
  if (!x) {
    throw std::invalid_argument(
        fmt::format("dispatch rule of {} needs numeric arguments {}; "
                    "problem '{}' lacks one",
                    family_, fmt::join(features_, ", "), problem.canonical()));
  }
  if (!tree_.empty()) {
    std::vector<double> raw;
    for (const auto& name : features_) raw.push_back(problem.at(name).as_double());
    return static_cast<std::size_t>(DispatchFitter::tree_label(tree_, raw));
  }
  return static_cast<std::size_t>(DispatchFitter::nearest_label(points_, *x));
}

std::optional<Config> Dispatcher::config_for(const Problem& problem, const Space& space,
                                             const Device& device) const {
  return repaired(space, config(pick(problem)), problem, device).config;
}

}  // namespace cutune
