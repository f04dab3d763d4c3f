// What answers an untuned problem: a family's dispatch rule (the format Dispatcher::to_json
// writes, evaluated here without the runtime library), the nearest tuned shape, or the default.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/lookup.hpp"
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

// The one line that says which fallback answered an untuned (family, problem, device), for the
// lookup table's events and cutune::Runtime's warnings alike.
std::string untuned_message(std::string_view family, std::string_view problem,
                            std::string_view device, const LookupAnswer& answer,
                            double max_distance);

}  // namespace cutune::lookup
