#include "lookup/fallback.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "cutune/lookup.hpp"
#include "space/log_shape.hpp"

namespace cutune::lookup {
namespace {

using json = nlohmann::json;

const json& field(const json& object, const char* name, std::string_view origin) {
  if (!object.is_object() || !object.contains(name)) {
    throw LookupError(std::string(origin) + ": missing '" + name + "'");
  }
  return object.at(name);
}

int index_in(const json& value, std::size_t size, std::string_view origin, const char* what) {
  if (!value.is_number_integer() || value.get<long long>() < -1 ||
      value.get<long long>() >= static_cast<long long>(size)) {
    throw LookupError(std::string(origin) + ": " + what + " " + value.dump() + " out of range");
  }
  return value.get<int>();
}

// Squared Euclidean distance, as the dispatch fitter compares points (the same picks, first of
// equals).
double squared_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

}  // namespace

DispatchRule DispatchRule::from_json(const json& j, std::string_view origin) {
  if (!j.is_object() || j.value("format", "") != "cutune-dispatch") {
    throw LookupError(std::string(origin) +
                      ": not a dispatch rule (expected \"format\": \"cutune-dispatch\")");
  }
  if (field(j, "version", origin) != 1) {
    throw LookupError(std::string(origin) + ": dispatch format version " + j.at("version").dump() +
                      " (this cutune reads 1)");
  }
  DispatchRule rule;
  try {
    rule.family = field(j, "family", origin).get<std::string>();
    rule.device = field(j, "device", origin).get<std::string>();
    rule.features = field(j, "features", origin).get<std::vector<std::string>>();
    for (const auto& [name, value] : field(j, "fixed", origin).items()) rule.fixed[name] = value;
    for (const json& entry : field(j, "configs", origin)) {
      rule.configs.push_back(field(entry, "config", origin));
    }
  } catch (const json::exception& error) {
    throw LookupError(std::string(origin) + ": " + error.what());
  }
  if (rule.configs.empty()) throw LookupError(std::string(origin) + ": 'configs' is empty");
  const json& body = field(j, "rule", origin);
  const std::string kind = field(body, "kind", origin).get<std::string>();
  const std::size_t n = rule.configs.size();
  if (kind == "tree") {
    const json& nodes = field(body, "nodes", origin);
    for (const json& node : nodes) {
      Node out;
      if (node.contains("config")) {
        out.config = index_in(node.at("config"), n, origin, "config");
      } else {
        out.feature =
            index_in(field(node, "feature", origin), rule.features.size(), origin, "feature");
        out.threshold = field(node, "threshold", origin).get<double>();
        out.left = index_in(field(node, "left", origin), nodes.size(), origin, "node");
        out.right = index_in(field(node, "right", origin), nodes.size(), origin, "node");
      }
      rule.tree.push_back(out);
    }
    if (rule.tree.empty()) throw LookupError(std::string(origin) + ": the tree has no node");
  } else if (kind == "nearest") {
    for (const json& point : field(body, "points", origin)) {
      rule.points.push_back({field(point, "x", origin).get<std::vector<double>>(),
                             index_in(field(point, "config", origin), n, origin, "config")});
    }
    if (rule.points.empty()) throw LookupError(std::string(origin) + ": no point");
  } else {
    throw LookupError(std::string(origin) + ": unknown rule kind '" + kind + "'");
  }
  return rule;
}

std::optional<std::size_t> DispatchRule::pick(const ProblemArgs& problem) const {
  for (const auto& [name, value] : fixed) {
    const auto it = problem.find(name);
    if (it == problem.end() || it->second != value) return std::nullopt;
  }
  const auto x = log_point(problem, features);
  if (!x) return std::nullopt;
  if (!tree.empty()) {
    // Thresholds are in problem units (left when value <= threshold); bounded by the node count
    // so that a cyclic file cannot loop.
    int node = 0;
    for (std::size_t step = 0; step <= tree.size() && node >= 0; ++step) {
      const Node& n = tree[static_cast<std::size_t>(node)];
      if (n.feature < 0) return static_cast<std::size_t>(n.config);
      node = problem.at(features[static_cast<std::size_t>(n.feature)]).get<double>() <= n.threshold
                 ? n.left
                 : n.right;
    }
    return std::nullopt;
  }
  std::size_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t p = 0; p < points.size(); ++p) {
    const double d = squared_distance(points[p].x, *x);
    if (d < best_distance) best_distance = d, best = p;
  }
  return static_cast<std::size_t>(points[best].config);
}

std::optional<std::pair<std::size_t, double>> nearest_shape(const std::vector<TunedShape>& shapes,
                                                            const ProblemArgs& problem) {
  const std::vector<std::string> names = numeric_names(problem);
  const auto x = log_point(problem, names);
  std::optional<std::pair<std::size_t, double>> best;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    if (!same_kind(shapes[s].args, problem)) continue;
    const double d = squared_distance(*log_point(shapes[s].args, names), *x);
    if (!best || d < best->second) best = {s, d};
  }
  if (best) best->second = std::sqrt(best->second);
  return best;
}

std::string untuned_message(std::string_view family, std::string_view problem,
                            std::string_view device, const LookupAnswer& answer,
                            double max_distance) {
  std::string message = std::string(family) + " '" + std::string(problem) + "' on '" +
                        std::string(device) + "' is untuned; ";
  char distance[64];
  switch (answer.source) {
    case LookupSource::dispatch:
      return message + "using the dispatch rule";
    case LookupSource::nearest:
      std::snprintf(distance, sizeof distance, "%.2f, within %g", answer.distance, max_distance);
      return message + "using the nearest tuned shape '" + answer.tuned_problem + "' (distance " +
             distance + ")";
    default:
      std::snprintf(distance, sizeof distance, "%g", max_distance);
      return message + "no tuned shape of its kind within distance " + distance +
             ": using the family's default config";
  }
}

}  // namespace cutune::lookup
