// A spec's `buffers`: the arrays a kernel takes, each with its element type, its size over the
// problem's arguments and its role (how a run starts from it and whether it is compared).
#include <algorithm>
#include <iterator>
#include <set>

#include "sections.hpp"

namespace cutune {
namespace {

// In BufferRole's order.
constexpr std::string_view role_names[] = {"input", "output", "scratch", "inout", "partial_sums"};
// In BufferFill's order.
constexpr std::string_view fill_names[] = {"random", "zero", "positive"};

}  // namespace

std::string_view to_string(BufferRole role) { return role_names[static_cast<int>(role)]; }
std::string_view to_string(BufferFill fill) { return fill_names[static_cast<int>(fill)]; }

namespace spec {
namespace {

const std::set<std::string, std::less<>> buffer_types{"f64", "f32", "f16", "bf16",
                                                      "i32", "i64", "u32", "u8"};

BufferRole read_role(const Reader& r, const Node& node) {
  const std::string text = r.one_of(node, {"input", "output", "scratch", "inout", "partial_sums"});
  const auto* found = std::find(std::begin(role_names), std::end(role_names), text);
  return static_cast<BufferRole>(found - std::begin(role_names));
}

}  // namespace

void read_buffers(const Reader& r, const Node& root, const Scope& problem_scope, KernelSpec& spec) {
  auto buffers = Reader::member(root, "buffers");
  if (!buffers) return;
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
    if (auto role = Reader::member(node, "role")) buffer.role = read_role(r, *role);
    if (auto fill = Reader::member(node, "fill")) {
      if (!is_filled(buffer.role)) r.fail(*fill, "only input and inout buffers have a fill");
      const std::string text = r.one_of(*fill, {"random", "zero", "positive"});
      const auto* found = std::find(std::begin(fill_names), std::end(fill_names), text);
      buffer.fill = static_cast<BufferFill>(found - std::begin(fill_names));
    }
    double count = buffer.count.evaluate(spec.problem, Device{});
    if (!(count >= 1)) {
      r.fail(node, "size evaluates to " + std::to_string(count) + " with the default problem");
    }
    spec.buffers.push_back(std::move(buffer));
  }
}

}  // namespace spec
}  // namespace cutune
