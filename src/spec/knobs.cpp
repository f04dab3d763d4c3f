// The spec's `knobs` (each a fragment of its kind) and `paired_moves`.
#include "cppgen/cpp_writer.hpp"
#include "cutune/space.hpp"
#include "expression.hpp"
#include "sections.hpp"

namespace cutune::spec {
namespace {

FragmentPtr read_fragment(const Reader& r, const Node& knob, bool named) {
  auto kind_node = r.require(knob, "kind");
  auto kind =
      r.one_of(kind_node, {"enum", "boolean", "power_of_two", "integer", "permutation", "list"});
  auto allowed = [&](std::initializer_list<std::string_view> fields) {
    std::vector<std::string_view> all{"kind"};
    if (named) all.push_back("name");
    all.insert(all.end(), fields);
    r.expect_members(knob, all, " for a knob of kind " + kind);
  };
  auto optional_value = [&](std::string_view key) -> std::optional<Value> {
    auto found = Reader::member(knob, key);
    if (!found) return std::nullopt;
    return r.value(*found);
  };
  try {
    if (kind == "enum") {
      allowed({"choices", "search", "default"});
      auto choices = r.values(r.require(knob, "choices"));
      auto search_node = Reader::member(knob, "search");
      std::vector<Value> search = search_node ? r.values(*search_node) : std::vector<Value>{};
      return enum_fragment(std::move(choices), std::move(search), optional_value("default"));
    }
    if (kind == "boolean") {
      allowed({"search", "default"});
      std::vector<bool> search;
      if (auto node = Reader::member(knob, "search")) {
        for (const auto& v : r.values(*node)) {
          if (!v.is_bool()) r.fail(*node, "expected a list of true/false");
          search.push_back(v.as_bool());
        }
      }
      return boolean_fragment(r.boolean(knob, "default", false), std::move(search));
    }
    if (kind == "power_of_two") {
      allowed({"min", "max", "default", "search_min", "search_max"});
      return power_of_two_fragment(r.integer(r.require(knob, "min")),
                                   r.integer(r.require(knob, "max")), r.integer(knob, "default"),
                                   r.integer(knob, "search_min").value_or(0),
                                   r.integer(knob, "search_max").value_or(0));
    }
    if (kind == "integer") {
      allowed({"min", "max", "step", "default", "search_min", "search_max"});
      return integer_fragment(r.integer(r.require(knob, "min")), r.integer(r.require(knob, "max")),
                              r.integer(knob, "step").value_or(1), r.integer(knob, "default"),
                              r.integer(knob, "search_min"), r.integer(knob, "search_max"));
    }
    if (kind == "permutation") {
      allowed({"size"});
      return permutation_fragment(static_cast<int>(r.integer(r.require(knob, "size"))));
    }
    allowed({"element", "length"});
    auto element = r.require(knob, "element");
    r.expect_object(element, {"kind", "choices", "search", "default", "min", "max", "step",
                              "search_min", "search_max", "size", "element", "length"});
    return list_fragment(read_fragment(r, element, false),
                         static_cast<int>(r.integer(r.require(knob, "length"))));
  } catch (const std::invalid_argument& error) {
    r.fail(knob, std::string("illegal knob: ") + error.what());
  }
}

}  // namespace

void read_knobs(const Reader& r, const Node& root, const Scope& problem_scope, Space& space) {
  auto knobs = r.require(root, "knobs");
  if (r.array(knobs).empty()) r.fail(knobs, "expected at least one knob");
  for (std::size_t i = 0; i < knobs.json.size(); ++i) {
    auto knob = r.element(knobs, i);
    if (!knob.json.is_object())
      r.fail(knob, "expected a knob object, got " + Reader::describe(knob.json));
    auto name_node = r.require(knob, "name");
    auto name = r.string(name_node);
    // A knob becomes a macro, an expression name and a member of exported headers.
    if (!cppgen::is_usable_name(name)) {
      r.fail(name_node, "knob name " + cppgen::string_literal(name) +
                            " is not a C identifier usable in C++ (letters, digits and '_', not "
                            "starting with a digit, not a C++ keyword)");
    }
    auto fragment = read_fragment(r, knob, true);
    try {
      space.add(name, std::move(fragment));
    } catch (const std::invalid_argument& error) {
      r.fail(knob, error.what());
    }
  }
  const Scope knob_scope{&space, problem_scope.problem};
  try {
    // The names knobs derive (A_0 for a list's elements, MODE_fast for a choice) must not be
    // another knob's or argument's: compiling any expression claims them all.
    (void)compile_expression("0", knob_scope);
  } catch (const std::invalid_argument& error) {
    r.fail(knobs, error.what());
  }
}

void read_paired_moves(const Reader& r, const Node& root, Space& space) {
  if (auto groups = Reader::member(root, "paired_moves")) {
    for (std::size_t i = 0; i < r.array(*groups).size(); ++i) {
      auto group = r.element(*groups, i);
      std::vector<std::string> names;
      for (std::size_t j = 0; j < r.array(group).size(); ++j) {
        names.push_back(r.string(r.element(group, j)));
      }
      try {
        space.pair_moves(names);
      } catch (const std::exception& error) {  // an unknown knob, or fewer than two
        r.fail(group, error.what());
      }
    }
  }
}

}  // namespace cutune::spec
