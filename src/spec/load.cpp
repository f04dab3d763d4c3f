// The spec loader: reads a spec file section by section (knobs.cpp, constraints.cpp,
// buffers.cpp, arguments.cpp, check.cpp, launch.cpp hold the larger sections) into a
// KernelSpec, every error naming file, line and column.
#include <nlohmann/json.hpp>

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

  spec::read_knobs(r, root, problem_scope, space);
  spec::Scope knob_scope{&space, problem_scope.problem};
  spec::read_constraints(r, root, knob_scope, space);

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

  spec::read_buffers(r, root, problem_scope, spec);
  spec::read_arguments(r, root, problem_scope, spec);

  spec::read_check(r, root, knob_scope, spec);
  spec::read_paired_moves(r, root, space);

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
      seed.propose = [partial = spec::read_partial_config(r, r.require(node, "config"), space)](
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
    if (const Expression& block_x = spec.launch->block[0]; block_x.uses_knobs()) {
      space.prefer(whole_warps(
          "the thread block's x side (" + block_x.text() + ") is a whole number of warps",
          [block_x](const Config& c, const Problem& p, const Device& d) {
            return block_x.evaluate(c, p, d);
          }));
    }
    const auto& block = spec.launch->block;
    if (block[0].uses_knobs() || block[1].uses_knobs() || block[2].uses_knobs()) {
      space.constrain(spec::thread_block_limit(*spec.launch));
    }
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
