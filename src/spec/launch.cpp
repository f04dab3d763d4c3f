// A CUDA spec's launch shape (cutune/spec.hpp's LaunchSpec): the grid as expressions, or as
// Kernel Tuner computes it, ceil(problem size / product of the grid divisors) per dimension.
#include "sections.hpp"

namespace cutune::spec {
namespace {

const char* const kAxes[] = {"x", "y", "z"};
// CUDA's thread block limits (sections.hpp, thread_block_limit).
constexpr double kMaxBlockThreads = 1024;
constexpr double kMaxBlockSide[3] = {1024, 1024, 64};

// Every dimension's expression text of a 1-to-3 element list, "1" for those it leaves out.
std::array<std::string, 3> dimension_texts(const Reader& r, const Node& list) {
  std::array<std::string, 3> out{"1", "1", "1"};
  const auto& items = r.array(list);
  if (items.empty() || items.size() > 3) r.fail(list, "expected 1 to 3 expressions (x, y, z)");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Node item = r.element(list, i);
    if (item.json.is_number()) {
      out[i] = item.json.dump();
    } else {
      out[i] = r.string(item);
    }
  }
  return out;
}

// grid_div: {"x": [divisors], "y": [...], "z": [...]}; an axis left out is divided by nothing.
std::array<std::string, 3> divisor_texts(const Reader& r, const Node& node) {
  r.expect_members(node, {"x", "y", "z"}, " of grid_div");
  std::array<std::string, 3> out{"1", "1", "1"};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    auto list = Reader::member(node, kAxes[axis]);
    if (!list) continue;
    std::string product;
    for (std::size_t i = 0; i < r.array(*list).size(); ++i) {
      const Node item = r.element(*list, i);
      const std::string text = item.json.is_number() ? item.json.dump() : r.string(item);
      product += (product.empty() ? "(" : " * (") + text + ")";
    }
    if (!product.empty()) out[axis] = product;
  }
  return out;
}

}  // namespace

LaunchSpec read_launch(const Reader& r, const Node& node, const Scope& scope) {
  r.expect_object(node, {"grid", "problem_size", "grid_div", "block", "cluster", "shared_memory"});
  LaunchSpec launch;
  auto dims = [&](std::string_view key, std::array<Expression, 3>& out, bool required) {
    auto found = required ? std::optional<Node>(r.require(node, key)) : Reader::member(node, key);
    for (auto& e : out) e = compile_expression("1", scope);
    if (!found) return;
    const auto& items = r.array(*found);
    if (items.empty() || items.size() > 3) r.fail(*found, "expected 1 to 3 expressions (x, y, z)");
    for (std::size_t i = 0; i < items.size(); ++i)
      out[i] = r.expression(r.element(*found, i), scope);
  };
  auto problem_size = Reader::member(node, "problem_size");
  auto grid_div = Reader::member(node, "grid_div");
  if (Reader::member(node, "grid")) {
    if (problem_size || grid_div) {
      r.fail(node, "give either 'grid' or 'problem_size' with 'grid_div', not both");
    }
    dims("grid", launch.grid, true);
  } else {
    if (!problem_size) r.fail(node, "missing field 'grid' (or 'problem_size' and 'grid_div')");
    const auto sizes = dimension_texts(r, *problem_size);
    const auto divisors =
        grid_div ? divisor_texts(r, *grid_div) : std::array<std::string, 3>{"1", "1", "1"};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      const std::string text = "cdiv(" + sizes[axis] + ", " + divisors[axis] + ")";
      try {
        launch.grid[axis] = compile_expression(text, scope);
      } catch (const std::invalid_argument& error) {
        r.fail(grid_div && divisors[axis] != "1" ? *grid_div : *problem_size, error.what());
      }
    }
  }
  dims("block", launch.block, true);
  dims("cluster", launch.cluster, false);
  auto smem = Reader::member(node, "shared_memory");
  launch.shared_memory = smem ? r.expression(*smem, scope) : compile_expression("0", scope);
  return launch;
}

Constraint thread_block_limit(const LaunchSpec& launch) {
  const auto& block = launch.block;
  return Constraint{.name = "the thread block (" + block[0].text() + " x " + block[1].text() +
                            " x " + block[2].text() +
                            ") has at most 1024 threads and sides of 1024, 1024 and 64",
                    .holds = [block](const Config& c, const Problem& p, const Device& d) {
                      double threads = 1;
                      for (std::size_t axis = 0; axis < 3; ++axis) {
                        const double side = block[axis].evaluate(c, p, d);
                        if (side > kMaxBlockSide[axis]) return false;
                        threads *= side;
                      }
                      return threads <= kMaxBlockThreads;
                    }};
}

}  // namespace cutune::spec
