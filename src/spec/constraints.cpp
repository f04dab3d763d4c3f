// The spec's `constraints`: predicates over knobs and problem, each with the repair that steps
// one knob in a declared direction.
#include <algorithm>

#include "cutune/space.hpp"
#include "expression.hpp"
#include "sections.hpp"

namespace cutune::spec {
namespace {

// The repair of a constraint: moves one knob through its search values, in the declared
// direction from its current value, to the first value that satisfies the constraint.
std::function<void(Config&, const Problem&, const Device&)> stepping_repair(Expression expression,
                                                                            std::size_t knob,
                                                                            std::string direction) {
  return [expression = std::move(expression), knob, direction = std::move(direction)](
             Config& config, const Problem& problem, const Device& device) {
    auto values = config.space().fragment(knob).values(View::search);
    std::sort(values.begin(), values.end());
    const Value current = config.at(knob);
    auto split = std::lower_bound(values.begin(), values.end(), current);
    std::vector<Value> below(values.begin(), split);
    std::reverse(below.begin(), below.end());
    std::vector<Value> above(split, values.end());
    if (!above.empty() && above.front() == current) above.erase(above.begin());

    std::vector<Value> order;
    if (direction == "down") {
      order = below;
    } else if (direction == "up") {
      order = above;
    } else {  // nearest: alternate outwards, lower first
      for (std::size_t i = 0; i < std::max(below.size(), above.size()); ++i) {
        if (i < below.size()) order.push_back(below[i]);
        if (i < above.size()) order.push_back(above[i]);
      }
    }
    for (const auto& candidate : order) {
      Config trial = config;
      trial.set(knob, candidate);
      if (expression.holds(trial, problem, device)) {
        config = std::move(trial);
        return;
      }
    }
  };
}

}  // namespace

void read_constraints(const Reader& r, const Node& root, const Scope& knob_scope, Space& space) {
  if (auto constraints = Reader::member(root, "constraints")) {
    for (std::size_t i = 0; i < r.array(*constraints).size(); ++i) {
      auto node = r.element(*constraints, i);
      r.expect_object(node, {"name", "expr", "repair", "gate"});
      Constraint constraint;
      constraint.name = r.string(node, "name", "constraint " + std::to_string(i));
      auto expression = r.expression(r.require(node, "expr"), knob_scope);
      constraint.is_gate = r.boolean(node, "gate", false);
      if (auto repair = Reader::member(node, "repair")) {
        r.expect_object(*repair, {"knob", "direction"});
        auto knob_node = r.require(*repair, "knob");
        auto knob = space.find(r.string(knob_node));
        if (!knob) {
          r.fail(knob_node, "unknown knob '" + r.string(knob_node) + "' (did you mean '" +
                                space.closest_name(r.string(knob_node)) + "'?)");
        }
        auto direction = Reader::member(*repair, "direction")
                             ? r.one_of(r.require(*repair, "direction"), {"down", "up", "nearest"})
                             : std::string("nearest");
        constraint.repair = stepping_repair(expression, *knob, direction);
      }
      constraint.holds = [expression](const Config& c, const Problem& p, const Device& d) {
        return expression.holds(c, p, d);
      };
      space.constrain(std::move(constraint));
    }
  }
}

}  // namespace cutune::spec
