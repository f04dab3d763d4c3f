// Dispatch rules as JSON: what Dispatcher::to_json writes and from_json/load read back.
#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "cutune/dispatch.hpp"

namespace cutune {

namespace {

constexpr std::string_view kFormat = "cutune-dispatch";
constexpr int kFormatVersion = 1;

}  // namespace

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
  nlohmann::json curve = nlohmann::json::array();
  for (const DispatchCurvePoint& point : report_.curve) {
    curve.push_back({{"configs", point.configs},
                     {"rule", point.rule},
                     {"held_out_geomean", point.held_out_geomean},
                     {"failed", point.failed}});
  }
  j["report"] = {{"rule", report_.rule},
                 {"curve", curve},
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
    for (const auto& point : r.value("curve", nlohmann::json::array())) {
      d.report_.curve.push_back(
          {point.value("configs", std::size_t{0}), point.value("rule", ""),
           point.contains("held_out_geomean") && point["held_out_geomean"].is_number()
               ? point["held_out_geomean"].get<double>()
               : std::nan(""),
           point.value("failed", std::size_t{0})});
    }
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

}  // namespace cutune
