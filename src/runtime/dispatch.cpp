#include "cutune/dispatch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "cppgen/cpp_writer.hpp"
#include "runtime/log_shape.hpp"

namespace cutune {

namespace {

// A config that failed on a shape (crash, wrong result...) must never be picked for it.
constexpr double kFailedRatio = 1e-3;

constexpr std::string_view kFormat = "cutune-dispatch";
constexpr int kFormatVersion = 1;

// What one candidate config did on one shape.
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

double geomean(const std::vector<double>& ratios) {
  if (ratios.empty()) return std::nan("");
  double sum = 0;
  for (double r : ratios) sum += std::log(r);
  return std::exp(sum / static_cast<double>(ratios.size()));
}

// The inverse of runtime::log_feature: tree thresholds in problem units.
double from_log_feature(double y) { return y >= 0 ? std::exp2(y) - 1.0 : 1.0 - std::exp2(-y); }

}  // namespace

// Fits rules over a matrix of candidate scores: score[s][c] = log(best(s) / time(c, s)), with the
// penalties of unknown and failed pairs.
struct DispatchFitter {
  std::vector<Shape> shapes;
  std::vector<std::string> hashes;       // candidate config hashes
  std::vector<nlohmann::json> configs;   // candidate configs
  std::vector<std::vector<Cell>> cells;  // [shape][candidate]
  std::vector<std::vector<double>> score;
  std::size_t feature_count = 0;

  struct Rule {
    std::vector<Dispatcher::Node> tree;  // config fields are candidate indices here
    std::vector<Dispatcher::Point> points;
  };

  void compute_scores() {
    score.assign(shapes.size(), std::vector<double>(hashes.size()));
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      for (std::size_t c = 0; c < hashes.size(); ++c) {
        const Cell& cell = cells[s][c];
        score[s][c] = cell.state == Cell::State::ok ? std::log(shapes[s].best_ms / cell.time_ms)
                      : cell.state == Cell::State::failed ? std::log(kFailedRatio)
                                                          : std::log(kUnknownRatio);
      }
    }
  }

  // The best candidate over a set of shapes, and its summed score (ties: the lower index).
  std::pair<int, double> best_candidate(const std::vector<double>& sums) const {
    int best = 0;
    for (std::size_t c = 1; c < sums.size(); ++c) {
      if (sums[c] > sums[best]) best = static_cast<int>(c);
    }
    return {best, sums.empty() ? 0.0 : sums[best]};
  }

  std::vector<double> sums(const std::vector<std::size_t>& members) const {
    std::vector<double> out(hashes.size(), 0.0);
    for (std::size_t s : members) {
      for (std::size_t c = 0; c < out.size(); ++c) out[c] += score[s][c];
    }
    return out;
  }

  int grow(std::vector<Dispatcher::Node>& tree, const std::vector<std::size_t>& members,
           int depth) const {
    const int index = static_cast<int>(tree.size());
    tree.push_back({});
    const auto [leaf, leaf_score] = best_candidate(sums(members));
    tree[index].config = leaf;
    if (depth == 0 || members.size() < 2) return index;

    // The split with the highest summed leaf score, by prefix sums along each feature.
    double best_gain = 1e-9;
    int best_feature = -1;
    double best_threshold = 0;
    for (std::size_t f = 0; f < feature_count; ++f) {
      std::vector<std::size_t> order = members;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return shapes[a].x[f] < shapes[b].x[f];
      });
      std::vector<double> left(hashes.size(), 0.0);
      const std::vector<double> total = sums(members);
      for (std::size_t i = 0; i + 1 < order.size(); ++i) {
        for (std::size_t c = 0; c < left.size(); ++c) left[c] += score[order[i]][c];
        const double here = shapes[order[i]].x[f], next = shapes[order[i + 1]].x[f];
        if (here == next) continue;
        std::vector<double> right(total.size());
        for (std::size_t c = 0; c < total.size(); ++c) right[c] = total[c] - left[c];
        const double gain = best_candidate(left).second + best_candidate(right).second - leaf_score;
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
    tree[index].threshold = from_log_feature(best_threshold);
    tree[index].config = -1;
    const int left_child = grow(tree, left_members, depth - 1);
    const int right_child = grow(tree, right_members, depth - 1);
    tree[index].left = left_child;
    tree[index].right = right_child;
    return index;
  }

  // Greedy forward selection of at most max_configs candidates, then every shape labelled with
  // the best of them.
  std::vector<Dispatcher::Point> nearest(const std::vector<std::size_t>& members,
                                         std::size_t max_configs) const {
    std::vector<int> chosen;
    std::vector<double> covered(shapes.size(), -std::numeric_limits<double>::infinity());
    while (chosen.size() < max_configs) {
      int best = -1;
      double best_total = -std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < hashes.size(); ++c) {
        if (std::find(chosen.begin(), chosen.end(), static_cast<int>(c)) != chosen.end()) continue;
        double total = 0;
        for (std::size_t s : members) total += std::max(covered[s], score[s][c]);
        if (total > best_total + 1e-12) {
          best_total = total;
          best = static_cast<int>(c);
        }
      }
      if (best < 0) break;
      double before = 0;
      for (std::size_t s : members) before += covered[s];
      if (!chosen.empty() && best_total <= before + 1e-9) break;
      chosen.push_back(best);
      for (std::size_t s : members) covered[s] = std::max(covered[s], score[s][best]);
    }
    std::vector<Dispatcher::Point> points;
    for (std::size_t s : members) {
      int label = chosen.front();
      for (int c : chosen) {
        if (score[s][c] > score[s][label]) label = c;
      }
      points.push_back({shapes[s].x, label});
    }
    return points;
  }

  Rule fit(const std::string& kind, int depth, const std::vector<std::size_t>& members,
           std::size_t max_configs) const {
    Rule rule;
    if (kind == "tree") {
      grow(rule.tree, members, depth);
    } else {
      rule.points = nearest(members, max_configs);
    }
    return rule;
  }

  // What Dispatcher::pick does, on a shape already in feature form.
  static int pick(const Rule& rule, const Shape& shape) {
    if (!rule.tree.empty()) return tree_label(rule.tree, shape.raw);
    return nearest_label(rule.points, shape.x);
  }

  static int tree_label(const std::vector<Dispatcher::Node>& tree, const std::vector<double>& raw) {
    int node = 0;
    while (tree[node].feature >= 0) {
      const auto& n = tree[node];
      node = raw[n.feature] <= n.threshold ? n.left : n.right;
    }
    return tree[node].config;
  }

  static int nearest_label(const std::vector<Dispatcher::Point>& points,
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
};

namespace {

struct Gathered {
  DispatchFitter fitter;
  std::vector<TuningKey> shape_keys;  // a key of each shape (fitter.shapes order)
  std::string device, version;
  std::vector<std::string> features;
  std::map<std::string, Value, std::less<>> fixed;
};

// The most common value of one key field (ties: the smallest), unless given.
std::string most_common(const std::vector<TuningKey>& keys, std::string TuningKey::*field,
                        const std::string& given) {
  if (!given.empty()) return given;
  std::map<std::string, int> counts;
  for (const auto& key : keys) ++counts[key.*field];
  std::string best;
  int best_count = 0;
  for (const auto& [value, count] : counts) {
    if (count > best_count) {
      best = value;
      best_count = count;
    }
  }
  return best;
}

Gathered gather(Store& store, const DispatchOptions& options) {
  if (options.family.empty()) throw std::invalid_argument("dispatch: a family is required");
  Gathered g;
  auto keys = store.keys({.family = options.family, .device = options.device});
  g.device = most_common(keys, &TuningKey::device, options.device);
  std::erase_if(keys, [&](const TuningKey& k) { return k.device != g.device; });
  g.version = most_common(keys, &TuningKey::family_version, options.version);
  std::erase_if(keys, [&](const TuningKey& k) { return k.family_version != g.version; });
  if (keys.empty()) {
    throw std::invalid_argument(
        fmt::format("dispatch: the store holds no tuned shape of family '{}'{}{}", options.family,
                    options.device.empty() ? "" : " on device '" + options.device + "'",
                    options.version.empty() ? "" : " at version '" + options.version + "'"));
  }

  // Per problem text: the latest measurement of every config (over toolchains, the fastest), and
  // the config the tunes decided on (Store::decision; over toolchains, the latest).
  std::map<std::string, std::map<std::string, Cell>> measured;
  std::map<std::string, std::pair<double, std::string>> decided;  // timestamp, winner hash
  std::map<std::string, TuningKey> key_of_problem;
  std::map<std::string, nlohmann::json> config_by_hash;
  for (const TuningKey& key : keys) {
    key_of_problem.try_emplace(key.problem, key);
    if (auto d = store.decision(key)) {
      auto [it, inserted] = decided.try_emplace(key.problem, d->timestamp, d->winner_hash);
      if (!inserted && d->timestamp > it->second.first) it->second = {d->timestamp, d->winner_hash};
    }
    std::map<std::string, Cell> latest;
    for (const StoredResult& r : store.results(key)) {
      Cell cell{r.measurement.ok() ? Cell::State::ok : Cell::State::failed, r.measurement.time_ms};
      latest[r.config_hash] = cell;
      if (!config_by_hash.contains(r.config_hash)) {
        config_by_hash[r.config_hash] = nlohmann::json::parse(r.config_json);
      }
    }
    auto& merged = measured[key.problem];
    for (const auto& [hash, cell] : latest) {
      auto [it, inserted] = merged.try_emplace(hash, cell);
      if (!inserted && cell.state == Cell::State::ok &&
          (it->second.state != Cell::State::ok || cell.time_ms < it->second.time_ms)) {
        it->second = cell;
      }
    }
  }

  DispatchFitter& fitter = g.fitter;
  std::map<std::string, std::size_t> candidate_index;
  std::vector<std::pair<std::string, std::string>> winners;  // problem text, winner hash
  for (const auto& [problem_text, by_config] : measured) {
    std::string winner;
    double winner_ms = std::numeric_limits<double>::infinity();
    for (const auto& [hash, cell] : by_config) {
      if (cell.state == Cell::State::ok && cell.time_ms < winner_ms) {
        winner = hash;
        winner_ms = cell.time_ms;
      }
    }
    // A decided shape deploys its decision (the rule above only for shapes tuned before them).
    if (auto d = decided.find(problem_text); d != decided.end()) {
      if (auto cell = by_config.find(d->second.second);
          cell != by_config.end() && cell->second.state == Cell::State::ok) {
        winner = d->second.second;
        winner_ms = cell->second.time_ms;
      }
    }
    if (winner.empty()) continue;  // nothing ran correctly on this shape
    Problem problem = Problem::parse(problem_text);
    if (fitter.shapes.empty()) {
      g.features = runtime::numeric_names(problem);
      g.fixed = runtime::fixed_args(problem);
    } else if (runtime::numeric_names(problem) != g.features ||
               runtime::fixed_args(problem) != g.fixed) {
      throw std::invalid_argument(fmt::format(
          "dispatch: shapes '{}' and '{}' differ in their argument names or in a non-numeric "
          "argument; fit one dispatcher per value (e.g. per dtype)",
          fitter.shapes.front().problem.canonical(), problem_text));
    }
    if (!candidate_index.contains(winner)) {
      candidate_index.emplace(winner, fitter.hashes.size());
      fitter.hashes.push_back(winner);
      fitter.configs.push_back(config_by_hash.at(winner));
    }
    Shape shape;
    shape.x = *runtime::log_point(problem, g.features);
    for (const auto& name : g.features) shape.raw.push_back(problem.at(name).as_double());
    shape.problem = std::move(problem);
    shape.best = candidate_index.at(winner);
    shape.best_ms = winner_ms;
    fitter.shapes.push_back(std::move(shape));
    g.shape_keys.push_back(key_of_problem.at(problem_text));
    winners.emplace_back(problem_text, winner);
  }
  if (fitter.shapes.empty()) {
    throw std::invalid_argument(
        fmt::format("dispatch: no shape of family '{}' has a correct measurement", options.family));
  }
  fitter.feature_count = g.features.size();
  fitter.cells.assign(fitter.shapes.size(), std::vector<Cell>(fitter.hashes.size()));
  for (std::size_t s = 0; s < fitter.shapes.size(); ++s) {
    const auto& by_config = measured.at(winners[s].first);
    for (std::size_t c = 0; c < fitter.hashes.size(); ++c) {
      if (auto it = by_config.find(fitter.hashes[c]); it != by_config.end()) {
        fitter.cells[s][c] = it->second;
      }
    }
  }
  fitter.compute_scores();
  return g;
}

struct RuleKind {
  std::string kind;
  int depth = 0;
  std::string name() const {
    return kind == "tree" ? fmt::format("tree depth {}", depth) : std::string("nearest");
  }
};

struct Scored {
  double objective = 0;  // mean held-out score, penalties included
  double training = 0;   // mean score of the rule fitted on every shape, on those shapes
  std::vector<int> picks;

  bool better_than(const Scored& other) const {
    if (std::abs(objective - other.objective) > 1e-12) return objective > other.objective;
    return training > other.training + 1e-12;
  }
};

}  // namespace

Dispatcher Dispatcher::fit(Store& store, const DispatchOptions& options) {
  if (options.rule != "auto" && options.rule != "tree" && options.rule != "nearest") {
    throw std::invalid_argument("dispatch: unknown rule '" + options.rule +
                                "' (auto, tree, nearest)");
  }
  if (options.max_configs == 0) throw std::invalid_argument("dispatch: max_configs must be >= 1");
  Gathered g = gather(store, options);
  const DispatchFitter& fitter = g.fitter;
  const std::size_t n = fitter.shapes.size();

  std::vector<RuleKind> kinds;
  if (options.rule != "nearest") {
    const int max_depth = static_cast<int>(std::floor(std::log2(options.max_configs)));
    for (int depth = 0; depth <= max_depth; ++depth) kinds.push_back({"tree", depth});
  }
  // Without numeric arguments there is nothing to split on or measure distance in.
  if (options.rule != "tree" && !g.features.empty()) kinds.push_back({"nearest", 0});
  if (kinds.empty()) kinds.push_back({"tree", 0});

  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  Dispatcher out;
  std::optional<std::size_t> chosen;
  std::vector<Scored> scored(kinds.size());
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    Scored& sc = scored[k];
    if (n < 2) {  // nothing to hold out: in-sample
      const auto rule = fitter.fit(kinds[k].kind, kinds[k].depth, all, options.max_configs);
      sc.picks.push_back(DispatchFitter::pick(rule, fitter.shapes[0]));
    } else {
      for (std::size_t held = 0; held < n; ++held) {
        std::vector<std::size_t> rest;
        for (std::size_t s = 0; s < n; ++s) {
          if (s != held) rest.push_back(s);
        }
        const auto rule = fitter.fit(kinds[k].kind, kinds[k].depth, rest, options.max_configs);
        sc.picks.push_back(DispatchFitter::pick(rule, fitter.shapes[held]));
      }
    }
    for (std::size_t s = 0; s < n; ++s) sc.objective += fitter.score[s][sc.picks[s]] / n;
    const auto whole = fitter.fit(kinds[k].kind, kinds[k].depth, all, options.max_configs);
    for (std::size_t s = 0; s < n; ++s) {
      sc.training += fitter.score[s][DispatchFitter::pick(whole, fitter.shapes[s])] / n;
    }
    if (!chosen || sc.better_than(scored[*chosen])) chosen = k;
  }

  // The report: held-out picks of the chosen kind, and what every kind scored.
  DispatchReport& report = out.report_;
  std::vector<double> known;
  for (std::size_t s = 0; s < n; ++s) {
    const int c = scored[*chosen].picks[s];
    DispatchShape row{fitter.shapes[s].problem, fitter.hashes[fitter.shapes[s].best],
                      fitter.shapes[s].best_ms, fitter.hashes[c], std::nullopt};
    if (fitter.cells[s][c].state == Cell::State::ok) {
      row.picked_ms = fitter.cells[s][c].time_ms;
      known.push_back(row.best_ms / *row.picked_ms);
    } else {
      ++report.held_out_unknown;
    }
    report.shapes.push_back(std::move(row));
  }
  report.held_out_geomean = geomean(known);
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    report.candidates_tried.push_back(
        fmt::format("{}: held-out score {:.4f} (geomean of best/picked; an unknown pick counts "
                    "{}, a failed one {})",
                    kinds[k].name(), std::exp(scored[k].objective), kUnknownRatio, kFailedRatio));
  }

  // The final rule on every shape, its configs renumbered in order of first use.
  const auto rule = fitter.fit(kinds[*chosen].kind, kinds[*chosen].depth, all, options.max_configs);
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
  report.rule =
      kinds[*chosen].kind == "tree"
          ? fmt::format("tree depth {} over {} configs", kinds[*chosen].depth, out.configs_.size())
          : fmt::format("nearest over {} configs", out.configs_.size());
  std::vector<double> training;
  for (std::size_t s = 0; s < n; ++s) {
    const int c = DispatchFitter::pick(rule, fitter.shapes[s]);
    if (fitter.cells[s][c].state == Cell::State::ok) {
      training.push_back(fitter.shapes[s].best_ms / fitter.cells[s][c].time_ms);
    }
  }
  report.training_geomean = geomean(training);

  out.family_ = options.family;
  out.version_ = g.version;
  out.device_ = g.device;
  out.features_ = g.features;
  out.fixed_ = g.fixed;
  return out;
}

std::size_t cross_measure(
    Store& store, const DispatchOptions& options, const Space& space, const Device& device,
    const std::function<std::unique_ptr<Evaluator>(const Problem&)>& make_evaluator) {
  Gathered g = gather(store, options);
  const DispatchFitter& fitter = g.fitter;
  std::size_t measured = 0;
  for (std::size_t s = 0; s < fitter.shapes.size(); ++s) {
    const Problem& problem = fitter.shapes[s].problem;
    const TuningKey& key = g.shape_keys[s];
    std::vector<Config> batch;
    std::vector<std::size_t> candidates;  // of each config in the batch
    auto record = [&](std::size_t c, Measurement m) {
      store.record({key, fitter.hashes[c], fitter.configs[c].dump(), std::move(m), "cross-measure",
                    static_cast<double>(std::time(nullptr))});
      ++measured;
    };
    for (std::size_t c = 0; c < fitter.hashes.size(); ++c) {
      if (fitter.cells[s][c].state != Cell::State::unknown) continue;
      std::optional<Config> config;
      try {
        config = space.from_json(fitter.configs[c]);
      } catch (const std::exception& error) {
        record(c, {.outcome = Outcome::invalid_config, .detail = error.what()});
        continue;
      }
      Normalized n = space.normalize(*config, problem, device);
      if (n.config && *n.config == *config) {
        batch.push_back(std::move(*config));
        candidates.push_back(c);
      } else {
        record(c, {.outcome = Outcome::invalid_config,
                   .detail = "needs repair for this shape" +
                             (n.failure.empty() ? "" : " (violates " + n.failure + ")")});
      }
    }
    if (batch.empty()) continue;
    const std::vector<Measurement> results = make_evaluator(problem)->evaluate(batch);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      record(candidates[i], i < results.size()
                                ? results[i]
                                : Measurement{.outcome = Outcome::crash,
                                              .detail = "the evaluator returned no result"});
    }
  }
  return measured;
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
  auto x = runtime::log_point(problem, features_);
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

nlohmann::json Dispatcher::to_json() const {
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kFormatVersion;
  j["family"] = family_;
  j["family_version"] = version_;
  j["device"] = device_;
  j["features"] = features_;
  j["fixed"] = nlohmann::json::object();
  for (const auto& [name, value] : fixed_) j["fixed"][name] = value.to_json();
  j["configs"] = nlohmann::json::array();
  for (std::size_t c = 0; c < configs_.size(); ++c) {
    j["configs"].push_back({{"hash", config_hashes_[c]}, {"config", configs_[c]}});
  }
  if (!tree_.empty()) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const Node& n : tree_) {
      nodes.push_back(n.feature < 0 ? nlohmann::json{{"config", n.config}}
                                    : nlohmann::json{{"feature", n.feature},
                                                     {"threshold", n.threshold},
                                                     {"left", n.left},
                                                     {"right", n.right}});
    }
    j["rule"] = {{"kind", "tree"}, {"nodes", nodes}};
  } else {
    nlohmann::json points = nlohmann::json::array();
    for (const Point& p : points_) points.push_back({{"x", p.x}, {"config", p.config}});
    j["rule"] = {{"kind", "nearest"}, {"points", points}};
  }
  nlohmann::json shapes = nlohmann::json::array();
  for (const DispatchShape& s : report_.shapes) {
    shapes.push_back(
        {{"problem", s.problem.canonical()},
         {"best_config", s.best_config_hash},
         {"best_ms", s.best_ms},
         {"picked_config", s.picked_config_hash},
         {"picked_ms", s.picked_ms ? nlohmann::json(*s.picked_ms) : nlohmann::json()}});
  }
  j["report"] = {{"rule", report_.rule},
                 {"held_out_geomean", report_.held_out_geomean},
                 {"held_out_unknown", report_.held_out_unknown},
                 {"training_geomean", report_.training_geomean},
                 {"candidates_tried", report_.candidates_tried},
                 {"shapes", shapes}};
  return j;
}

Dispatcher Dispatcher::from_json(const nlohmann::json& j, std::string_view origin) {
  auto fail = [&](const std::string& what) -> std::invalid_argument {
    return std::invalid_argument(fmt::format("{}: {}", origin, what));
  };
  auto field = [&](const nlohmann::json& object, const char* name,
                   nlohmann::json::value_t type) -> const nlohmann::json& {
    if (!object.is_object() || !object.contains(name))
      throw fail(fmt::format("missing '{}'", name));
    const auto& value = object.at(name);
    const bool number = type == nlohmann::json::value_t::number_float && value.is_number();
    const bool integer =
        type == nlohmann::json::value_t::number_integer && value.is_number_integer();
    if (value.type() != type && !number && !integer) {
      throw fail(fmt::format("'{}' has the wrong type ({})", name, value.type_name()));
    }
    return value;
  };
  using T = nlohmann::json::value_t;
  if (!j.is_object() || j.value("format", "") != kFormat) {
    throw fail(fmt::format("not a dispatch rule (expected \"format\": \"{}\")", kFormat));
  }
  if (field(j, "version", T::number_integer).get<int>() != kFormatVersion) {
    throw fail(fmt::format("dispatch format version {} (this cutune reads {})",
                           j.at("version").dump(), kFormatVersion));
  }
  Dispatcher d;
  d.family_ = field(j, "family", T::string).get<std::string>();
  d.version_ = field(j, "family_version", T::string).get<std::string>();
  d.device_ = field(j, "device", T::string).get<std::string>();
  for (const auto& name : field(j, "features", T::array)) {
    if (!name.is_string()) throw fail("'features' must hold strings");
    d.features_.push_back(name.get<std::string>());
  }
  for (const auto& [name, value] : field(j, "fixed", T::object).items()) {
    d.fixed_.emplace(name, Value::from_json(value));
  }
  for (const auto& entry : field(j, "configs", T::array)) {
    d.config_hashes_.push_back(field(entry, "hash", T::string).get<std::string>());
    d.configs_.push_back(field(entry, "config", T::object));
  }
  if (d.configs_.empty()) throw fail("'configs' is empty");
  const int config_count = static_cast<int>(d.configs_.size());
  auto config_index = [&](const nlohmann::json& entry) {
    const int c = field(entry, "config", T::number_integer).get<int>();
    if (c < 0 || c >= config_count) throw fail(fmt::format("config index {} out of range", c));
    return c;
  };
  const auto& rule = field(j, "rule", T::object);
  const std::string kind = field(rule, "kind", T::string).get<std::string>();
  if (kind == "tree") {
    const auto& nodes = field(rule, "nodes", T::array);
    const int node_count = static_cast<int>(nodes.size());
    for (const auto& entry : nodes) {
      Node n;
      if (entry.contains("feature")) {
        n.feature = field(entry, "feature", T::number_integer).get<int>();
        n.threshold = field(entry, "threshold", T::number_float).get<double>();
        n.left = field(entry, "left", T::number_integer).get<int>();
        n.right = field(entry, "right", T::number_integer).get<int>();
        const int self = static_cast<int>(d.tree_.size());
        if (n.feature < 0 || n.feature >= static_cast<int>(d.features_.size()) || n.left <= self ||
            n.right <= self || n.left >= node_count || n.right >= node_count) {
          throw fail(fmt::format("tree node {} refers to a feature or node out of range", self));
        }
      } else {
        n.config = config_index(entry);
      }
      d.tree_.push_back(n);
    }
    if (d.tree_.empty()) throw fail("the tree has no node");
  } else if (kind == "nearest") {
    for (const auto& entry : field(rule, "points", T::array)) {
      Point p;
      for (const auto& v : field(entry, "x", T::array)) p.x.push_back(v.get<double>());
      if (p.x.size() != d.features_.size()) throw fail("a point's 'x' does not match 'features'");
      p.config = config_index(entry);
      d.points_.push_back(std::move(p));
    }
    if (d.points_.empty()) throw fail("the nearest-neighbour rule has no point");
  } else {
    throw fail("unknown rule kind '" + kind + "' (tree, nearest)");
  }
  if (j.contains("report") && j["report"].is_object()) {
    const auto& r = j["report"];
    d.report_.rule = r.value("rule", "");
    // NaN (no shape to score) is written as null.
    auto number = [&r](const char* name) {
      return r.contains(name) && r[name].is_number() ? r[name].get<double>() : std::nan("");
    };
    d.report_.held_out_geomean = number("held_out_geomean");
    d.report_.held_out_unknown = r.value("held_out_unknown", std::size_t{0});
    d.report_.training_geomean = number("training_geomean");
    d.report_.candidates_tried = r.value("candidates_tried", std::vector<std::string>{});
    for (const auto& s : r.value("shapes", nlohmann::json::array())) {
      DispatchShape row{Problem::parse(s.value("problem", "")), s.value("best_config", ""),
                        s.value("best_ms", 0.0), s.value("picked_config", ""), std::nullopt};
      if (s.contains("picked_ms") && s["picked_ms"].is_number()) row.picked_ms = s["picked_ms"];
      d.report_.shapes.push_back(std::move(row));
    }
  }
  return d;
}

Dispatcher Dispatcher::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read dispatch rule " + path.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& error) {
    throw std::invalid_argument(fmt::format("{}: not JSON: {}", path.string(), error.what()));
  }
  return from_json(j, path.string());
}

namespace {

// The C++ type of a knob, from its values in every config.
std::string knob_type(const std::vector<nlohmann::json>& configs, const std::string& knob) {
  bool all_bool = true, all_int = true, all_number = true, all_string = true;
  for (const auto& config : configs) {
    const auto it = config.find(knob);
    const bool present = it != config.end();
    all_bool = all_bool && present && it->is_boolean();
    all_int = all_int && present && it->is_number_integer();
    all_number = all_number && present && it->is_number();
    all_string = all_string && present && it->is_string();
  }
  if (all_bool) return "bool";
  if (all_int) return "long long";
  if (all_number) return "double";
  return "std::string_view";  // strings, and the JSON text of anything else
}

std::string knob_value(const nlohmann::json& value, const std::string& type) {
  if (type == "bool") return value.get<bool>() ? "true" : "false";
  if (type == "long long") return fmt::format("{}LL", value.get<long long>());
  if (type == "double") return cppgen::double_literal(value.get<double>());
  if (value.is_string()) return cppgen::string_view_literal(value.get<std::string>());
  return cppgen::string_view_literal(value.dump());
}

// Must compute exactly what runtime::log_feature computes (src/runtime/log_shape.hpp).
constexpr std::string_view kLogFeatureSource = R"(constexpr double log2_positive(double x) {
  int exponent = 0;
  while (x >= 2.0) {
    x /= 2.0;
    ++exponent;
  }
  while (x < 1.0) {
    x *= 2.0;
    --exponent;
  }
  const double z = (x - 1.0) / (x + 1.0);
  const double z2 = z * z;
  double term = z;
  double sum = 0.0;
  for (int i = 1; i < 60; i += 2) {
    sum += term / i;
    term *= z2;
  }
  return exponent + 2.0 * sum * 1.4426950408889634;
}

constexpr double log_feature(double x) {
  return x >= 0 ? log2_positive(1.0 + x) : -log2_positive(1.0 - x);
}
)";

void emit_tree(std::string& out, const std::vector<Dispatcher::Node>& tree, int node,
               const std::vector<std::string>& params, int indent) {
  const std::string pad(indent, ' ');
  const auto& n = tree[node];
  if (n.feature < 0) {
    out += fmt::format("{}return {};\n", pad, n.config);
    return;
  }
  out += fmt::format("{}if ({} <= {}) {{\n", pad, params[n.feature], n.threshold);
  emit_tree(out, tree, n.left, params, indent + 2);
  out += pad + "}\n";
  emit_tree(out, tree, n.right, params, indent);
}

}  // namespace

std::string Dispatcher::cpp_header(std::string_view cpp_namespace) const {
  std::vector<std::string> knobs;
  using cppgen::string_literal;
  cppgen::check_namespace(cpp_namespace, "dispatch");
  const std::string context = fmt::format("dispatch: family {}:", string_literal(family_));
  for (const auto& [knob, unused] : configs_.front().items()) {
    knobs.push_back(cppgen::checked_identifier(knob, context + " knob"));
  }
  std::vector<std::string> params;
  for (const auto& feature : features_) {
    params.push_back(cppgen::checked_identifier(feature, context + " problem argument"));
  }
  // Problem arguments are pick()'s parameters: they must not hide what its body uses.
  static constexpr std::string_view kBodyNames[] = {
      "Config",  "kConfigCount", "kConfigs", "kPointCount", "kPoints",
      "kLabels", "log_feature",  "pick",     "pick_index",  "x",
      "best",    "best_d",       "p",        "d",           "f",
      "e"};
  for (const std::string& name : params) {
    if (std::find(std::begin(kBodyNames), std::end(kBodyNames), name) != std::end(kBodyNames)) {
      throw cppgen::NameError(
          fmt::format("{} problem argument {} clashes with a name of the "
                      "generated header",
                      context, string_literal(name)));
    }
  }

  std::string out = fmt::format(
      "// Generated by `cutune dispatch`; do not edit. Family {} (version {}) on {}.\n"
      "// Rule: {}; held-out geomean of best/picked {:.4f} over {} tuned shapes ({} unknown).\n"
      "// Fixed arguments:",
      string_literal(family_), string_literal(version_), string_literal(device_),
      string_literal(report_.rule), report_.held_out_geomean, report_.shapes.size(),
      report_.held_out_unknown);
  for (const auto& [name, value] : fixed_) {
    out += fmt::format(" {}={}", string_literal(name), string_literal(value.to_string()));
  }
  out += fixed_.empty() ? " none.\n" : ".\n";
  out +=
      fmt::format("#pragma once\n\n#include <string_view>\n\nnamespace {} {{\n\nstruct Config {{\n",
                  cpp_namespace);
  std::vector<std::string> types;
  for (const auto& knob : knobs) {
    types.push_back(knob_type(configs_, knob));
    out += fmt::format("  {} {};\n", types.back(), knob);
  }
  out += fmt::format("}};\n\ninline constexpr int kConfigCount = {};\n", configs_.size());
  out += "inline constexpr Config kConfigs[kConfigCount] = {\n";
  for (const auto& config : configs_) {
    std::vector<std::string> values;
    for (std::size_t k = 0; k < knobs.size(); ++k) {
      values.push_back(config.contains(knobs[k]) ? knob_value(config[knobs[k]], types[k])
                                                 : cppgen::string_view_literal("null"));
    }
    out += fmt::format("    {{{}}},\n", fmt::join(values, ", "));
  }
  out += "};\n\n";

  std::vector<std::string> signature;
  for (const auto& p : params) signature.push_back("double " + p);
  if (!tree_.empty()) {
    out +=
        fmt::format("// Problem arguments in their own units.\nconstexpr int pick_index({}) {{\n",
                    fmt::join(signature, ", "));
    for (const auto& p : params) out += fmt::format("  (void){};\n", p);
    emit_tree(out, tree_, 0, params, 2);
    out += "}\n\n";
  } else {
    out += std::string(kLogFeatureSource) + "\n";
    out += fmt::format("inline constexpr int kPointCount = {};\n", points_.size());
    out += fmt::format("inline constexpr double kPoints[kPointCount][{}] = {{\n", features_.size());
    for (const auto& p : points_) out += fmt::format("    {{{}}},\n", fmt::join(p.x, ", "));
    out += "};\ninline constexpr int kLabels[kPointCount] = {";
    for (std::size_t i = 0; i < points_.size(); ++i) {
      out += fmt::format("{}{}", i == 0 ? "" : ", ", points_[i].config);
    }
    out += "};\n\n";
    std::vector<std::string> logs;
    for (const auto& p : params) logs.push_back("log_feature(" + p + ")");
    out += fmt::format(
        "// Problem arguments in their own units; the nearest tuned shape in log2 space decides.\n"
        "constexpr int pick_index({}) {{\n"
        "  const double x[{}] = {{{}}};\n"
        "  int best = 0;\n"
        "  double best_d = 0;\n"
        "  for (int p = 0; p < kPointCount; ++p) {{\n"
        "    double d = 0;\n"
        "    for (int f = 0; f < {}; ++f) {{\n"
        "      const double e = x[f] - kPoints[p][f];\n"
        "      d += e * e;\n"
        "    }}\n"
        "    if (p == 0 || d < best_d) {{\n"
        "      best = p;\n"
        "      best_d = d;\n"
        "    }}\n"
        "  }}\n"
        "  return kLabels[best];\n"
        "}}\n\n",
        fmt::join(signature, ", "), features_.size(), fmt::join(logs, ", "), features_.size());
  }
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p);
  out += fmt::format("constexpr const Config& pick({}) {{ return kConfigs[pick_index({})]; }}\n\n",
                     fmt::join(signature, ", "), fmt::join(names, ", "));
  out += fmt::format("}}  // namespace {}\n", cpp_namespace);
  return out;
}

}  // namespace cutune
