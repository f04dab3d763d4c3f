// Shape dispatch without the database: a small rule, fitted over the tuned shapes of one family on
// one device, that maps any problem to one of a few configs. Written as JSON (read back by
// Dispatcher::load and the runtime) or as a self-contained C++ header (a constexpr rule).
//
// A pick is never illegal: the rule picks a config as tuned, and its user repairs it for the
// target problem with the family's space (Space::normalize, the tuner's own repair), which the
// runtime does for every dispatched config (Runtime::get) and config_for() does here. The header
// cannot carry the repair (a family's repairs are C++ code over the device, e.g. the GEMM's shared
// memory fold), so its comment says so; docs/runtime.md.
//
// Fitting. Candidates are each tuned shape's best `candidates_per_shape` configs (its winner
// first). The time of candidate c on shape s is the store's latest measurement, under s's key, of
// c as the space repairs it for s (given `repair_space`; cross_measure() measures exactly those),
// so picks are scored after the repair, measured, not assumed. A pair never measured is
// *unknown* (scored kUnknownRatio); one that failed, or that the repair cannot make legal, scores
// 0.001. A rule is scored by the geometric mean over shapes of best(s) / time(pick(s), s), where
// best(s) is the time of s's own winner. For each config budget K = 1..max_configs the fit tries
// decision trees whose leaves pick any candidate (depth <= log2 K), trees and nearest neighbour
// over K greedily chosen candidates; each is scored leave-one-shape-out (the held-out shape's
// own configs are no candidates for it). The curve reports the best held-out geomean per K; the
// best (K, rule) overall (ties: the better in-sample score, then the fewer configs and the
// simpler rule) is refitted on every shape. Fitting is deterministic: the same store gives the
// same rule.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/evaluator.hpp"
#include "cutune/problem.hpp"
#include "cutune/space.hpp"
#include "cutune/store.hpp"

namespace cutune {

// The score an unknown (never measured) pick gets while fitting.
inline constexpr double kUnknownRatio = 0.5;

struct DispatchOptions {
  std::string family = {};   // required
  std::string device = {};   // empty: the device with the most tuned shapes of the family
  std::string version = {};  // family version; empty: the one with the most tuned shapes
  std::size_t max_configs = 8;
  std::string rule = "auto";  // "auto", "tree" or "nearest"
  // The space that repairs a candidate for a shape, and the device it repairs for; null: no
  // repair (a candidate that would need one is looked up as it stands, so it counts as unknown).
  const Space* repair_space = nullptr;
  Device repair_device = {};
  // How many of each shape's fastest configs become candidates (its winner first).
  std::size_t candidates_per_shape = 1;
  // cross_measure() only: measure every (shape, candidate) pair again, in one batch per shape,
  // so that every time a shape's ratios compare comes from the same session.
  bool remeasure = false;
};

// The held-out geomean of the best rule with at most `configs` configs.
struct DispatchCurvePoint {
  std::size_t configs = 0;
  std::string rule;
  double held_out_geomean = 0;  // over the picks that ran correctly
  std::size_t failed = 0;       // held-out picks that failed or were never measured
};

// One tuned shape, and how the fitted rule does on it when the shape is held out.
struct DispatchShape {
  Problem problem;
  std::string best_config_hash;
  double best_ms = 0;
  std::string picked_config_hash;   // by the rule fitted without this shape (as tuned)
  std::optional<double> picked_ms;  // of the pick as repaired for this shape; empty: never
                                    // measured on this shape, or failed there
};

struct DispatchReport {
  std::vector<DispatchShape> shapes;
  std::string rule;                  // "tree depth 2", "nearest over 6 configs"
  double held_out_geomean = 0;       // best / picked over shapes whose pick ran correctly
  std::size_t held_out_unknown = 0;  // shapes whose held-out pick never ran correctly on them
  double training_geomean = 0;       // the final rule on the shapes it was fitted on
  std::vector<std::string> candidates_tried;  // every rule kind with its leave-one-out score
  std::vector<DispatchCurvePoint> curve;      // K = 1..max_configs
};

// Fills the pairs a fit would call unknown (all of them with options.remeasure): measures every
// candidate, as `space` repairs it for each tuned shape of the family, on that shape (one
// evaluator per shape, one batch) and records the results under that shape's key and the
// repaired config's hash. A candidate the repair cannot make legal is recorded as invalid_config
// under its own hash. Returns how many (shape, config) pairs were measured. Throws what fit()
// throws for a store without shapes, and what the evaluator throws.
std::size_t cross_measure(
    Store& store, const DispatchOptions& options, const Space& space, const Device& device,
    const std::function<std::unique_ptr<Evaluator>(const Problem&)>& make_evaluator);

class Dispatcher {
 public:
  // Fits over the store's tuned shapes. Throws std::invalid_argument when the family has no tuned
  // shape on the device, when shapes differ in argument names or in a non-numeric argument (fit
  // one dispatcher per dtype), or for an unknown rule name.
  static Dispatcher fit(Store& store, const DispatchOptions& options);

  // Reads what to_json() wrote; throws std::invalid_argument naming the field and the file.
  static Dispatcher from_json(const nlohmann::json& j, std::string_view origin = "dispatch JSON");
  static Dispatcher load(const std::filesystem::path& path);
  nlohmann::json to_json() const;
  // A C++17 header that compiles alone: the configs as a constexpr table of a struct of knobs and
  // constexpr pick_index(<numeric args in name order>), which agrees with pick() on every input.
  // Strings are std::string_view. Throws std::invalid_argument when the namespace, a knob or a
  // problem argument is not a usable C++ identifier (every other text is escaped).
  std::string cpp_header(std::string_view cpp_namespace) const;

  // The index of the config for a problem. Throws std::invalid_argument when the problem lacks a
  // feature argument or differs in a fixed (non-numeric) argument; the runtime then falls back.
  std::size_t pick(const Problem& problem) const;
  // The picked config as `space` repairs it for `problem` on `device` (what Runtime::get loads);
  // empty when even the repair cannot make it legal. Throws what pick() and Space::from_json
  // throw.
  std::optional<Config> config_for(const Problem& problem, const Space& space,
                                   const Device& device) const;
  const nlohmann::json& config(std::size_t index) const { return configs_.at(index); }
  std::size_t config_count() const { return configs_.size(); }

  const std::string& family() const { return family_; }
  const std::string& version() const { return version_; }
  const std::string& device() const { return device_; }
  const std::vector<std::string>& features() const { return features_; }
  const DispatchReport& report() const { return report_; }  // empty unless fitted or stored

  // A node of the tree rule: a leaf when feature < 0. Thresholds are in problem units (left when
  // value <= threshold), so a reader needs no logarithm.
  struct Node {
    int feature = -1;
    double threshold = 0;
    int left = -1, right = -1;
    int config = -1;
  };
  // A labelled shape of the nearest-neighbour rule, in log2 feature space.
  struct Point {
    std::vector<double> x;
    int config = -1;
  };

 private:
  std::string family_, version_, device_;
  std::vector<std::string> features_;                // numeric problem arguments, sorted
  std::map<std::string, Value, std::less<>> fixed_;  // non-numeric arguments all shapes share
  std::vector<nlohmann::json> configs_;
  std::vector<std::string> config_hashes_;
  std::vector<Node> tree_;     // the tree rule (root first), or
  std::vector<Point> points_;  // the nearest-neighbour rule
  DispatchReport report_;
  friend struct DispatchFitter;
};

}  // namespace cutune
