// The kernel's own parameter list and its __constant__ symbols (cutune/spec.hpp).
#include <set>

#include "cppgen/cpp_writer.hpp"
#include "sections.hpp"

namespace cutune::spec {
namespace {

const std::set<std::string, std::less<>> scalar_types{"i32", "i64", "u32", "u64", "f32", "f64"};

int buffer_named(const Reader& r, const Node& node, const KernelSpec& spec) {
  const std::string name = r.string(node);
  for (std::size_t i = 0; i < spec.buffers.size(); ++i) {
    if (spec.buffers[i].name == name) return static_cast<int>(i);
  }
  std::vector<std::string> names;
  for (const auto& buffer : spec.buffers) names.push_back(buffer.name);
  r.fail(node, "no buffer '" + name + "' (buffers: " + join(names) + ")");
}

ArgumentSpec read_argument(const Reader& r, const Node& node, const Scope& scope,
                           const KernelSpec& spec) {
  ArgumentSpec out;
  if (auto buffer = Reader::member(node, "buffer")) {
    r.expect_members(node, {"buffer"}, " for a buffer argument");
    out.buffer = buffer_named(r, *buffer, spec);
    out.name = spec.buffers[static_cast<std::size_t>(out.buffer)].name;
    return out;
  }
  r.expect_members(node, {"name", "type", "value"}, " for a scalar argument");
  auto type = r.require(node, "type");
  out.type = r.string(type);
  if (!scalar_types.contains(out.type)) {
    r.fail(type, "expected one of " + join(scalar_types) + ", got \"" + out.type + "\"");
  }
  out.value = r.expression(r.require(node, "value"), scope);
  out.name = r.string(node, "name", out.value.text());
  return out;
}

ConstantSpec read_constant(const Reader& r, const Node& node, const KernelSpec& spec) {
  ConstantSpec out;
  auto symbol = r.require(node, "symbol");
  out.symbol = r.string(symbol);
  if (!cppgen::is_identifier(out.symbol)) r.fail(symbol, "expected a C identifier");
  if (auto buffer = Reader::member(node, "buffer")) {
    r.expect_members(node, {"symbol", "buffer"}, " for a constant filled from a buffer");
    out.buffer = buffer_named(r, *buffer, spec);
    if (!is_filled(spec.buffers[static_cast<std::size_t>(out.buffer)].role)) {
      r.fail(*buffer, "a constant is filled from an input or inout buffer");
    }
    return out;
  }
  r.expect_members(node, {"symbol", "type", "values"}, " for a constant of values");
  auto type = r.require(node, "type");
  out.type = r.string(type);
  if (out.type != "f32" && out.type != "f64" && out.type != "i32" && out.type != "i64" &&
      out.type != "u32" && out.type != "u8") {
    r.fail(type, "expected one of f32, f64, i32, i64, u32, u8, got \"" + out.type + "\"");
  }
  auto values = r.require(node, "values");
  for (std::size_t i = 0; i < r.array(values).size(); ++i) {
    out.values.push_back(r.number(r.element(values, i)));
  }
  if (out.values.empty()) r.fail(values, "expected at least one value");
  return out;
}

}  // namespace

void read_arguments(const Reader& r, const Node& root, const Scope& problem_scope,
                    KernelSpec& spec) {
  std::vector<bool> used(spec.buffers.size(), false);
  if (auto constants = Reader::member(root, "constants")) {
    if (spec.backend != "cuda") r.fail(*constants, "only cuda specs have __constant__ symbols");
    for (std::size_t i = 0; i < r.array(*constants).size(); ++i) {
      spec.constants.push_back(read_constant(r, r.element(*constants, i), spec));
      if (spec.constants.back().buffer >= 0) used[spec.constants.back().buffer] = true;
    }
  }
  auto arguments = Reader::member(root, "arguments");
  if (!arguments) return;
  if (Reader::member(root, "scalars")) {
    r.fail(*arguments, "give either 'arguments' (the kernel's parameters in order) or 'scalars'");
  }
  for (std::size_t i = 0; i < r.array(*arguments).size(); ++i) {
    auto node = r.element(*arguments, i);
    spec.arguments.push_back(read_argument(r, node, problem_scope, spec));
    if (spec.arguments.back().buffer >= 0) used[spec.arguments.back().buffer] = true;
  }
  if (spec.arguments.empty()) r.fail(*arguments, "expected at least one argument");
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      r.fail(*arguments,
             "buffer '" + spec.buffers[i].name + "' is neither an argument nor a constant's fill");
    }
  }
}

}  // namespace cutune::spec
