// Shape dispatch without the database: a small rule, fitted over the tuned shapes of one family on
// one device, that maps any problem to one of a few configs. Written as JSON (read back by
// Dispatcher::load and the runtime) or as a self-contained C++ header (a constexpr rule).
//
// Fitting. The candidates are the shapes' winners. For a shape s and a candidate c, the time of c
// on s is the store's latest ok measurement of c under s's key; a pair never measured is
// *unknown* (warm-started tunes measure the neighbours' winners, which fills most nearby pairs).
// A rule is scored by the geometric mean over shapes of best(s) / time(pick(s), s); while fitting,
// an unknown pick counts as kUnknownRatio, so rules prefer configs known to run well. Rules tried:
// decision trees over log2 of the numeric problem arguments of depth 1 up to log2(max_configs)
// (each leaf picks the candidate best over its shapes, so a tree never uses more configs than it
// has leaves), and nearest neighbour among the shapes, each labelled with the best of a greedily
// chosen set of at most max_configs candidates. The rule with the best leave-one-out score wins
// (ties: the better score on the shapes it was fitted on, then the simpler rule) and is refitted
// on every shape. Fitting is deterministic: the same store gives the same rule.
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
};

// One tuned shape, and how the fitted rule does on it when the shape is held out.
struct DispatchShape {
  Problem problem;
  std::string best_config_hash;
  double best_ms = 0;
  std::string picked_config_hash;   // by the rule fitted without this shape
  std::optional<double> picked_ms;  // empty: never measured on this shape, or failed there
};

struct DispatchReport {
  std::vector<DispatchShape> shapes;
  std::string rule;                  // "tree depth 2", "nearest over 6 configs"
  double held_out_geomean = 0;       // best / picked over shapes whose pick ran correctly
  std::size_t held_out_unknown = 0;  // shapes whose held-out pick never ran correctly on them
  double training_geomean = 0;       // the final rule on the shapes it was fitted on
  std::vector<std::string> candidates_tried;  // every rule kind with its leave-one-out score
};

// Fills the pairs a fit would call unknown: measures every shape's winner on every other tuned
// shape of the family (one evaluator per shape) and records the results under that shape's key.
// A winner that the space must repair to run a shape is recorded there as invalid_config (a rule
// must not pick it for that shape). Returns how many pairs were measured.
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
