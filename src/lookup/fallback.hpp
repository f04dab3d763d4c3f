// What answers an untuned problem: a family's dispatch rule (the format Dispatcher::to_json
// writes, evaluated here without the runtime library) or the nearest tuned shape.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lookup/problem_text.hpp"

namespace cutune::lookup {

struct DispatchRule {
  std::string family, device;
  std::vector<std::string> features;  // numeric problem arguments, sorted
  ProblemArgs fixed;                  // non-numeric arguments every shape shared
  std::vector<nlohmann::json> configs;
  struct Node {
    int feature = -1;
    double threshold = 0;
    int left = -1, right = -1, config = -1;
  };
  struct Point {
    std::vector<double> x;
    int config = -1;
  };
  std::vector<Node> tree;     // the tree rule, or
  std::vector<Point> points;  // the nearest-neighbour rule

  // Throws LookupError naming `origin` and the field.
  static DispatchRule from_json(const nlohmann::json& j, std::string_view origin);
  // The config index for a problem; nullopt when the problem is outside the rule (another fixed
  // argument, a feature missing), as Dispatcher::pick refuses it.
  std::optional<std::size_t> pick(const ProblemArgs& problem) const;
};

struct TunedShape {
  ProblemArgs args;
  std::size_t answer = 0;  // index of its winner in the table
};

// The shape nearest to `problem` among those of its kind (same_kind), with its distance.
std::optional<std::pair<std::size_t, double>> nearest_shape(const std::vector<TunedShape>& shapes,
                                                            const ProblemArgs& problem);

}  // namespace cutune::lookup
