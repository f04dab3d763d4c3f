// A Kernel Tuner tune script -> a cutune spec (cutune/kernel_tuner.hpp): the tune_kernel() call's
// arguments mapped onto the spec's arguments, constants, check and launch.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "cutune/kernel_tuner.hpp"
#include "kt/script_context.hpp"

namespace cutune {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;
using kt::Context;
using kt::PyNode;

const char* const kAxes[] = {"x", "y", "z"};

// The call's arguments by Kernel Tuner's parameter names.
std::map<std::string, kt::PyNodePtr> named_arguments(const PyNode& call, const Context& c) {
  static const char* const positional[] = {"kernel_name", "kernel_source", "problem_size",
                                           "arguments", "tune_params"};
  std::map<std::string, kt::PyNodePtr> out;
  for (std::size_t i = 0; i < call.children.size(); ++i) {
    const std::string keyword = i < call.ops.size() ? call.ops[i] : "";
    if (keyword == "*") c.fail("tune_kernel(*...) cannot be read");
    if (keyword.empty() && i >= 5) c.fail("tune_kernel() takes 5 positional arguments");
    out[keyword.empty() ? positional[i] : keyword] = call.children[i];
  }
  for (const char* required : positional) {
    if (!out.contains(required)) c.fail(std::string("tune_kernel() without ") + required);
  }
  return out;
}

// Kernel Tuner's launch: block_size_x/y/z (256, 1, 1 when not tuned), and the grid divided by
// grid_div_* (by default that axis's block size, when tuned).
ordered launch_of(const std::map<std::string, json>& grid_div, const json& problem_size,
                  const std::set<std::string>& knobs, const Context& c) {
  ordered launch{{"problem_size", problem_size}, {"grid_div", ordered::object()}};
  ordered block = ordered::array();
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const std::string block_knob = std::string("block_size_") + kAxes[axis];
    block.push_back(knobs.contains(block_knob) ? ordered(block_knob)
                                               : ordered(axis == 0 ? 256 : 1));
    if (axis >= problem_size.size()) continue;
    const auto found = grid_div.find(std::string("grid_div_") + kAxes[axis]);
    ordered divisors = ordered::array();
    if (found == grid_div.end() || found->second.is_null()) {
      if (knobs.contains(block_knob)) divisors.push_back(block_knob);
    } else {
      const json list = found->second.is_array() ? found->second : json::array({found->second});
      for (const json& d : list) divisors.push_back(c.expression(d, found->first));
    }
    launch["grid_div"][kAxes[axis]] = divisors;
  }
  launch["block"] = block;
  return launch;
}

// Each knob's default set to the first config in Kernel Tuner's order (the first knob varying
// slowest) that every restriction allows, so that the spec's default config is legal; the first
// values stay when none is found among the first million.
void legal_defaults(ordered& knob_list, const json& restrictions) {
  std::vector<kt::PyNodePtr> tests;
  for (const json& text : restrictions) tests.push_back(kt::parse_python(text.get<std::string>()));
  std::vector<std::size_t> at(knob_list.size(), 0);
  for (int tried = 0; tried < 1000000; ++tried) {
    json names = json::object();
    for (std::size_t k = 0; k < at.size(); ++k) {
      names[knob_list[k].at("name").get<std::string>()] = knob_list[k].at("choices")[at[k]];
    }
    bool legal = true;
    for (const auto& test : tests) {
      try {
        const json holds = kt::evaluate_python(test, names);
        legal = legal && holds.is_number() && holds.get<double>() != 0;
      } catch (const kt::PythonError&) {
        return;  // a restriction this reader cannot evaluate: the loader will judge it
      }
    }
    if (legal) {
      for (std::size_t k = 0; k < at.size(); ++k) {
        knob_list[k]["default"] = knob_list[k].at("choices")[at[k]];
      }
      return;
    }
    std::size_t k = at.size();  // the next config: the last knob varies fastest
    while (k > 0 && ++at[k - 1] == knob_list[k - 1].at("choices").size()) at[--k] = 0;
    if (k == 0) return;
  }
}

// The spec of the tune_kernel() call `found`, which the script's statements before it bound
// `scope` for.
KtScriptSpec spec_of_call(const kt::ScriptCall& found, const kt::ScriptScope& scope,
                          const KtImportOptions& options, std::string_view origin,
                          const Context& c) {
  auto args = named_arguments(*found.call, c);
  KtScriptSpec out;
  auto keyword = [&](const std::string& name) -> std::optional<json> {
    const auto it = args.find(name);
    if (it == args.end()) return std::nullopt;
    return c.value(it->second, name);
  };

  // Kernel Tuner compares its lang case-blind.
  std::string lang = keyword("lang").value_or(json("CUDA")).get<std::string>();
  for (char& ch : lang) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool cpu = lang == "c";
  if (!cpu && lang != "cuda" && lang != "cupy" && lang != "nvcuda") {
    c.fail("lang=\"" + lang + "\": cutune imports CUDA and C kernels");
  }
  for (const char* refused : {"texmem_args", "smem_args", "defines", "block_size_names"}) {
    if (keyword(refused) && !keyword(refused)->is_null()) {
      c.fail(std::string(refused) + " has no place in a cutune spec");
    }
  }
  for (const char* dropped : {"verify", "metrics", "observers", "objective"}) {
    if (args.contains(dropped)) out.notes.push_back(std::string(dropped) + " is left out");
  }

  ordered& spec = out.spec;
  const std::string kernel = keyword("kernel_name")->get<std::string>();
  const std::string entry = options.entry.empty() ? kernel : options.entry;
  spec["name"] = options.name.empty() ? entry.substr(0, entry.find('<')) : options.name;
  spec["description"] = "Imported from Kernel Tuner (" + std::string(origin) + ")";
  spec["backend"] = cpu ? "cpu" : "cuda";
  const json source = *keyword("kernel_source");
  const std::filesystem::path folder = std::filesystem::path(origin).parent_path();
  if (!options.source.empty()) {
    spec["source"] = options.source;
  } else if (source.is_object() && source.contains("source_file")) {
    spec["source"] = (folder / source.at("source_file").get<std::string>()).lexically_normal();
  } else if (source.is_string() && source.get<std::string>().find('\n') == std::string::npos) {
    spec["source"] = (folder / source.get<std::string>()).lexically_normal();
  } else if (source.is_string()) {
    out.source_text = source.get<std::string>();
    spec["source"] = spec["name"].get<std::string>() + (cpu ? ".cpp" : ".cu");
  } else {
    c.fail("kernel_source: a file name or the source text, got " + source.dump().substr(0, 80));
  }
  spec["entry"] = entry;
  // The kernel's text, for its signature: the script's own, or the file it names (a path from
  // where import-kt runs, until the CLI makes it relative to the spec); none when unreadable.
  std::optional<std::string> kernel_text;
  if (!out.source_text.empty()) {
    kernel_text = out.source_text;
  } else if (options.source.empty()) {
    std::ifstream file(spec["source"].get<std::string>());
    if (file) kernel_text = std::string(std::istreambuf_iterator<char>(file), {});
  }

  // Problem: numbers become size_x, size_y, size_z; a string names an expression of knobs.
  json sizes = *keyword("problem_size");
  if (!sizes.is_array()) sizes = json::array({sizes});
  if (sizes.empty() || sizes.size() > 3) c.fail("problem_size must have 1 to 3 entries");
  spec["problem"] = ordered::object();
  json launch_sizes = json::array();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].is_number()) {
      const std::string name = std::string("size_") + kAxes[i];
      spec["problem"][name] = sizes[i].get<long long>();
      launch_sizes.push_back(name);
    } else {
      launch_sizes.push_back(c.expression(sizes[i], "problem_size"));
    }
  }

  // Knobs in the dict's order (as inserted), restrictions as constraints.
  const json params = *keyword("tune_params");
  if (!params.is_object() || params.empty()) c.fail("tune_params: expected a non-empty dict");
  std::vector<std::string> order;
  const PyNode& params_node = *args.at("tune_params");
  if (params_node.kind == PyNode::Kind::name && scope.key_order.contains(params_node.text)) {
    order = scope.key_order.at(params_node.text);
  }
  for (const auto& [name, values] : params.items()) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  spec["knobs"] = ordered::array();
  std::set<std::string> knobs;
  for (const std::string& name : order) {
    const json& values = params.at(name);
    if (!values.is_array() || values.empty())
      c.fail("tune_params['" + name + "']: expected a list");
    spec["knobs"].push_back(
        {{"name", name}, {"kind", "enum"}, {"choices", values}, {"default", values.front()}});
    knobs.insert(name);
  }
  if (const auto restrictions = keyword("restrictions"); restrictions && !restrictions->is_null()) {
    spec["constraints"] = ordered::array();
    const json list = restrictions->is_array() ? *restrictions : json::array({*restrictions});
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string()) c.fail("restrictions: strings only (a function cannot be read)");
      spec["constraints"].push_back(
          {{"name", "restriction_" + std::to_string(i + 1)},
           {"expr", c.expression(list[i], "restriction " + std::to_string(i + 1))}});
    }
    legal_defaults(spec["knobs"], list);
  }

  kt::add_arguments(spec, args, c, cpu, options, kernel_text, out.notes);

  if (!cpu) {
    std::map<std::string, json> grid_div;
    for (const char* axis : {"grid_div_x", "grid_div_y", "grid_div_z"}) {
      if (const auto given = keyword(axis)) grid_div[axis] = *given;
    }
    spec["launch"] = launch_of(grid_div, launch_sizes, knobs, c);
  }
  if (spec.contains("check_run")) {  // a run_kernel() reference launches by its own grid_div
    const json run = spec["check_run"];
    spec.erase("check_run");
    std::map<std::string, json> grid_div;
    for (const auto& [key, value] : run.items()) {
      if (key.starts_with("grid_div_")) grid_div[key] = value;
    }
    if (!cpu) spec["check"]["launch"] = launch_of(grid_div, launch_sizes, knobs, c);
  }
  // Kernel Tuner defines `kernel_tuner` and the block sizes it launches with, tuned or not.
  ordered flags = ordered::array({"-Dkernel_tuner=1"});
  for (std::size_t axis = 0; axis < 3 && !cpu; ++axis) {
    const std::string block_knob = std::string("block_size_") + kAxes[axis];
    if (!knobs.contains(block_knob)) {
      flags.push_back("-D" + block_knob + "=" + (axis == 0 ? "256" : "1"));
    }
  }
  if (const auto given = keyword("compiler_options"); given && given->is_array()) {
    for (const json& flag : *given) {
      const std::string text = flag.get<std::string>();
      if (!cpu && (text.starts_with("-arch") || text.starts_with("--gpu-architecture"))) {
        out.notes.push_back("compiler option " + text +
                            " is left out: cutune compiles for the "
                            "measuring GPU");
        continue;
      }
      flags.push_back(text);
    }
  }
  // The compiler of Kernel Tuner's backend: lang "CUDA" (PyCUDA) runs nvcc, "cupy" and "nvcuda"
  // NVRTC; a kernel may need nvcc (<cub/cub.cuh> holds host code that NVRTC refuses).
  spec["compile"] = {{"compiler", cpu              ? "g++"
                                  : lang == "cuda" ? "nvcc"
                                                   : "nvrtc"},
                     {"flags", flags}};
  return out;
}

}  // namespace

KtScriptSpec spec_from_kt_script(std::string_view script, const KtImportOptions& options,
                                 std::string_view origin) {
  kt::ScriptScope scope;
  for (const char* module : {"numpy.", "np."}) {
    for (const char* dtype : {"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                              "uint8", "uint16", "uint32", "uint64", "complex64", "complex128"}) {
      scope.names[std::string(module) + dtype] = std::string(dtype);
    }
    scope.names[std::string(module) + "pi"] = 3.141592653589793;
  }
  kt::ScriptCall found;
  try {
    found = kt::run_tune_script(script, origin, scope);
  } catch (const kt::PythonError& error) {
    throw KernelTunerError(error.what());
  }
  const Context c{std::string(origin) + ":" + std::to_string(found.line), scope};
  try {
    return spec_of_call(found, scope, options, origin, c);
  } catch (const json::exception& error) {  // a value of another type than Kernel Tuner takes
    c.fail(std::string("unexpected value: ") + error.what());
  }
}

}  // namespace cutune
