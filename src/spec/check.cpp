// A spec's `check`: a reference kernel or a reference config of the kernel itself; without one, a
// spec with buffers to compare is checked against its own default config.
#include <algorithm>

#include "sections.hpp"

namespace cutune {

std::string checked_against(const KernelSpec& spec) {
  if (!spec.check) return {};
  if (!spec.check->entry.empty()) return "the reference kernel '" + spec.check->entry + "'";
  return spec.check->reference_config ? "the reference config" : "the default config";
}

namespace spec {

PartialConfig read_partial_config(const Reader& r, const Node& node, const Space& space) {
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
}

void read_check(const Reader& r, const Node& root, const Scope& knob_scope, KernelSpec& spec) {
  auto check = Reader::member(root, "check");
  if (!check) {
    // Without a reference every config is held to what the default config computes from the
    // same inputs: a wrong config then fails its check instead of winning by skipping work.
    if (std::any_of(spec.buffers.begin(), spec.buffers.end(),
                    [](const BufferSpec& b) { return is_compared(b.role); })) {
      spec.check = CheckSpec{};
    }
    return;
  }
  r.expect_object(*check, {"source", "entry", "config", "launch", "tolerance"});
  CheckSpec out;
  if (auto source = Reader::member(*check, "source")) out.source = r.file(*source);
  out.entry = r.string(*check, "entry", "");
  if (auto config = Reader::member(*check, "config")) {
    out.reference_config = read_partial_config(r, *config, spec.tuning->space);
  }
  if (out.entry.empty() && !out.reference_config) {
    r.fail(*check,
           "expected 'entry' (a reference kernel, with 'config' the definitions it compiles "
           "with) or 'config' (a reference config of this kernel)");
  }
  if (auto launch = Reader::member(*check, "launch")) {
    if (spec.backend != "cuda") r.fail(*launch, "only cuda specs have a launch shape");
    if (out.entry.empty()) r.fail(*launch, "a reference config launches as the kernel does");
    out.launch = read_launch(r, *launch, knob_scope);
  }
  if (!out.source.empty() && out.entry.empty()) r.fail(*check, "'source' needs an 'entry'");
  if (auto tolerance = Reader::member(*check, "tolerance")) {
    out.tolerance = r.number(*tolerance);
    if (out.tolerance < 0) r.fail(*tolerance, "expected a tolerance >= 0");
  }
  spec.check = std::move(out);
}

}  // namespace spec
}  // namespace cutune
