#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "cppgen/cpp_writer.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"
#include "eval/files.hpp"
#include "expression.hpp"
#include "hash/content_hash.hpp"
#include "json_locations.hpp"
#include "reader.hpp"
#include "sections.hpp"

namespace cutune {
namespace {

using spec::child_pointer;
using spec::join;
using spec::Json;
using spec::Node;
using spec::Reader;

const std::set<std::string, std::less<>> buffer_types{"f64", "f32", "f16", "bf16",
                                                      "i32", "i64", "u32", "u8"};

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

std::vector<std::pair<std::string, double>> numeric_arguments(const KernelSpec& spec) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& name : spec.problem_order) {
    const Value& v = spec.problem.at(name);
    if (v.is_int()) out.emplace_back(name, static_cast<double>(v.as_int()));
    if (v.is_double()) out.emplace_back(name, v.as_double());
    if (v.is_bool()) out.emplace_back(name, v.as_bool() ? 1.0 : 0.0);
  }
  return out;
}

}  // namespace

Problem KernelSpec::resolve(const Problem& overrides) const {
  Problem out = problem;
  for (const auto& [name, value] : overrides.args()) {
    if (!problem.has(name)) {
      throw SpecError(path.string() + ": problem argument '" + name +
                      "' is not declared by the spec (declared: " + join(problem_order) + ")");
    }
    const Value& declared = problem.at(name);
    bool numeric =
        (declared.is_int() || declared.is_double()) && (value.is_int() || value.is_double());
    if (!numeric && (declared.is_int() != value.is_int() || declared.is_bool() != value.is_bool() ||
                     declared.is_string() != value.is_string())) {
      throw SpecError(path.string() + ": problem argument '" + name + "' = " + value.to_string() +
                      " has another type than its default " + declared.to_string());
    }
    if (declared.is_int() && value.is_double()) {
      throw SpecError(path.string() + ": problem argument '" + name + "' must be an integer, got " +
                      value.to_string());
    }
    out.set(name, value);
  }
  return out;
}

KernelSpec parse_spec(std::string_view text, const std::filesystem::path& origin) {
  Json document;
  try {
    document = Json::parse(text);
  } catch (const Json::parse_error& error) {
    // nlohmann reports the byte just past the offending one.
    auto at = spec::position_of(text, error.byte > 0 ? error.byte - 1 : 0);
    std::string message = error.what();
    if (auto colon = message.find(": syntax error"); colon != std::string::npos) {
      message = message.substr(colon + 2);
    }
    throw SpecError(origin.string() + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) + ": malformed JSON: " + message);
  }
  Reader r(text, origin);
  Node root{document, ""};
  r.expect_object(root, {"name", "description", "backend", "source", "entry", "knobs",
                         "constraints", "problem", "scalars", "buffers", "arguments", "constants",
                         "check", "seeds", "compile", "timing", "launch", "paired_moves"});

  KernelSpec spec;
  spec.path = origin;
  spec.name = r.string(r.require(root, "name"));
  spec.backend = r.one_of(r.require(root, "backend"), {"cpu", "cuda", "host"});
  spec.source = r.file(r.require(root, "source"));
  spec.entry = r.string(r.require(root, "entry"));
  spec.tuning = std::make_unique<TuningSpace>();
  Space& space = spec.tuning->space;

  if (auto problem = Reader::member(root, "problem")) {
    if (!problem->json.is_object()) r.fail(*problem, "expected an object of argument: value");
    for (const auto& [name, value] : problem->json.items()) {
      Node arg{value, child_pointer(problem->pointer, name)};
      if (!value.is_primitive() || value.is_null()) {
        r.fail(arg, "expected a number, boolean or string, got " + Reader::describe(value));
      }
      spec.problem.set(name, r.value(arg));
      spec.problem_order.push_back(name);
    }
  }
  spec::Scope problem_scope{nullptr, numeric_arguments(spec)};

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
  spec::Scope knob_scope{&space, problem_scope.problem};
  try {
    // The names knobs derive (A_0 for a list's elements, MODE_fast for a choice) must not be
    // another knob's or argument's: compiling any expression claims them all.
    (void)spec::compile_expression("0", knob_scope);
  } catch (const std::invalid_argument& error) {
    r.fail(knobs, error.what());
  }

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

  if (auto scalars = Reader::member(root, "scalars")) {
    for (std::size_t i = 0; i < r.array(*scalars).size(); ++i) {
      spec.scalars.push_back(r.expression(r.element(*scalars, i), problem_scope));
    }
  } else {
    for (const auto& name : spec.problem_order) {
      if (spec.problem.at(name).is_int()) {
        spec.scalars.push_back(spec::compile_expression(name, problem_scope));
      }
    }
  }

  if (auto buffers = Reader::member(root, "buffers")) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < r.array(*buffers).size(); ++i) {
      auto node = r.element(*buffers, i);
      r.expect_object(node, {"name", "type", "size", "role", "fill"});
      BufferSpec buffer;
      buffer.name = r.string(r.require(node, "name"));
      if (!names.insert(buffer.name).second) r.fail(node, "duplicate buffer '" + buffer.name + "'");
      auto type = r.require(node, "type");
      buffer.type = r.string(type);
      if (!buffer_types.contains(buffer.type)) {
        r.fail(type, "expected one of " + join(buffer_types) + ", got \"" + buffer.type + "\"");
      }
      buffer.count = r.expression(r.require(node, "size"), problem_scope);
      if (auto role = Reader::member(node, "role")) {
        auto text = r.one_of(*role, {"input", "output", "scratch"});
        buffer.role = text == "input"    ? BufferRole::input
                      : text == "output" ? BufferRole::output
                                         : BufferRole::scratch;
      }
      if (auto fill = Reader::member(node, "fill")) {
        if (buffer.role != BufferRole::input) r.fail(*fill, "only input buffers have a fill");
        buffer.fill =
            r.one_of(*fill, {"random", "zero"}) == "zero" ? BufferFill::zero : BufferFill::random;
      }
      double count = buffer.count.evaluate(spec.problem, Device{});
      if (!(count >= 1)) {
        r.fail(node, "size evaluates to " + std::to_string(count) + " with the default problem");
      }
      spec.buffers.push_back(std::move(buffer));
    }
  }

  spec::read_arguments(r, root, problem_scope, spec);

  auto partial_config = [&](const Node& node) {
    if (!node.json.is_object()) r.fail(node, "expected an object of knob: value");
    PartialConfig partial;
    for (const auto& [name, value] : node.json.items()) {
      partial.emplace(name, r.value({value, child_pointer(node.pointer, name)}));
    }
    try {
      space.complete(partial);
    } catch (const ConfigError& error) {
      r.fail(node, error.what());
    }
    return partial;
  };

  if (auto check = Reader::member(root, "check")) {
    r.expect_object(*check, {"source", "entry", "config", "launch", "tolerance"});
    CheckSpec out;
    if (auto source = Reader::member(*check, "source")) out.source = r.file(*source);
    out.entry = r.string(*check, "entry", "");
    if (auto config = Reader::member(*check, "config"))
      out.reference_config = partial_config(*config);
    if (out.entry.empty() && !out.reference_config) {
      r.fail(*check,
             "expected 'entry' (a reference kernel, with 'config' the definitions it compiles "
             "with) or 'config' (a reference config of this kernel)");
    }
    if (auto launch = Reader::member(*check, "launch")) {
      if (spec.backend != "cuda") r.fail(*launch, "only cuda specs have a launch shape");
      if (out.entry.empty()) r.fail(*launch, "a reference config launches as the kernel does");
      out.launch = spec::read_launch(r, *launch, knob_scope);
    }
    if (!out.source.empty() && out.entry.empty()) r.fail(*check, "'source' needs an 'entry'");
    if (auto tolerance = Reader::member(*check, "tolerance")) {
      out.tolerance = r.number(*tolerance);
      if (out.tolerance < 0) r.fail(*tolerance, "expected a tolerance >= 0");
    }
    spec.check = std::move(out);
  }

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

  if (auto seeds = Reader::member(root, "seeds")) {
    for (std::size_t i = 0; i < r.array(*seeds).size(); ++i) {
      auto node = r.element(*seeds, i);
      r.expect_object(node, {"name", "priority", "when", "config"});
      HeuristicSeed seed;
      seed.name = r.string(r.require(node, "name"));
      seed.priority = static_cast<int>(r.integer(node, "priority").value_or(0));
      auto when = Reader::member(node, "when");
      auto eligible =
          when ? r.expression(*when, problem_scope) : spec::compile_expression("1", problem_scope);
      seed.eligible = [eligible](const Problem& p, const Device& d) {
        double value = eligible.evaluate(p, d);
        return value != 0 && value == value;
      };
      seed.propose = [partial = partial_config(r.require(node, "config"))](
                         const Problem&, const Device&) { return partial; };
      spec.tuning->seeds.push_back(std::move(seed));
    }
  }

  spec.compile.compiler = spec.backend == "cpu" ? "c++" : spec.backend == "cuda" ? "nvcc" : "host";
  if (auto compile = Reader::member(root, "compile")) {
    r.expect_object(*compile, {"compiler", "flags", "depends", "timeout_s"});
    spec.compile.compiler = r.string(*compile, "compiler", spec.compile.compiler);
    if (auto flags = Reader::member(*compile, "flags")) {
      for (std::size_t i = 0; i < r.array(*flags).size(); ++i) {
        spec.compile.flags.push_back(r.string(r.element(*flags, i)));
      }
    }
    if (auto depends = Reader::member(*compile, "depends")) {
      for (std::size_t i = 0; i < r.array(*depends).size(); ++i) {
        spec.compile.depends.push_back(r.file(r.element(*depends, i)));
      }
    }
    spec.compile.timeout_s = r.positive(*compile, "timeout_s", spec.compile.timeout_s);
  }

  if (auto timing = Reader::member(root, "timing")) {
    r.expect_object(*timing,
                    {"warmup", "budget_ms", "min_reps", "max_reps", "flush_cache", "timeout_s"});
    auto count = [&](std::string_view key, int fallback, int lowest) {
      auto found = Reader::member(*timing, key);
      if (!found) return fallback;
      auto value = r.integer(*found);
      if (value < lowest || value > 1'000'000) {
        r.fail(*found, "expected an integer in [" + std::to_string(lowest) + ", 1000000]");
      }
      return static_cast<int>(value);
    };
    spec.timing.warmup = count("warmup", spec.timing.warmup, 0);
    spec.timing.min_reps = count("min_reps", spec.timing.min_reps, 1);
    spec.timing.max_reps = count("max_reps", spec.timing.max_reps, 1);
    if (spec.timing.max_reps < spec.timing.min_reps) {
      r.fail(*timing, "max_reps is below min_reps");
    }
    spec.timing.budget_ms = r.positive(*timing, "budget_ms", spec.timing.budget_ms);
    spec.timing.flush_cache = r.boolean(*timing, "flush_cache", spec.timing.flush_cache);
    spec.timing.timeout_s = r.positive(*timing, "timeout_s", spec.timing.timeout_s);
  }

  auto launch = Reader::member(root, "launch");
  if (spec.backend == "cuda") {
    if (!launch) r.fail(root, "a cuda spec needs a 'launch' object (grid, block, ...)");
    spec.launch = spec::read_launch(r, *launch, knob_scope);
  } else if (launch) {
    r.fail(*launch, "only cuda specs have a launch shape");
  }

  hash::StoredVersionHash version;
  version.field(text).field(eval::read_file(spec.source));
  for (const auto& depend : spec.compile.depends) version.field(eval::read_file(depend));
  if (spec.check && !spec.check->source.empty()) version.field(eval::read_file(spec.check->source));
  spec.version = version.hex();
  return spec;
}

KernelSpec load_spec(const std::filesystem::path& path) {
  return parse_spec(eval::read_file(path), path);
}

}  // namespace cutune
