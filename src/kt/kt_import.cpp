// Kernel Tuner descriptions -> cutune specs (cutune/kernel_tuner.hpp).
#include <map>

#include "cutune/kernel_tuner.hpp"
#include "kt/python_expression.hpp"

namespace cutune {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

[[noreturn]] void fail(std::string_view origin, const std::string& what) {
  throw KernelTunerError(std::string(origin) + ": " + what);
}

// A value list given as a JSON list or as Python text.
json values_of(const json& given, std::string_view origin, const std::string& knob) {
  try {
    json values =
        given.is_string() ? kt::evaluate_python(kt::parse_python(given.get<std::string>())) : given;
    if (!values.is_array() || values.empty())
      fail(origin, knob + ": values must be a non-empty list");
    return values;
  } catch (const kt::PythonError& error) {
    fail(origin, knob + ": " + error.what());
  }
}

std::string spec_expression(const std::string& python, std::string_view origin,
                            const std::string& what) {
  try {
    return kt::to_spec_expression(kt::parse_python(python));
  } catch (const kt::PythonError& error) {
    fail(origin, what + ": " + error.what());
  }
}

const char* const kAxes[] = {"x", "y", "z"};

// The spec's skeleton: name, backend, source, entry, problem size and knobs.
ordered skeleton(const std::string& kernel, const KtImportOptions& options,
                 const json& problem_size, const ordered& knobs, std::string_view origin,
                 const std::string& file) {
  const std::string name = options.name.empty() ? kernel : options.name;
  if (name.empty()) fail(origin, "no kernel name: pass one (--name)");
  ordered spec;
  spec["name"] = name;
  spec["description"] = "Imported from Kernel Tuner (" + std::string(origin) + ")";
  spec["backend"] = "cuda";
  spec["source"] = !options.source.empty() ? options.source : !file.empty() ? file : name + ".cu";
  spec["entry"] = options.entry.empty() ? (kernel.empty() ? name : kernel) : options.entry;
  const json sizes = problem_size.is_array() ? problem_size : json::array({problem_size});
  if (problem_size.is_null() || sizes.empty() || sizes.size() > 3) {
    fail(origin, "problem_size must be 1 to 3 numbers, got " + problem_size.dump());
  }
  ordered problem = ordered::object();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!sizes[i].is_number_integer()) fail(origin, "problem_size must hold integers");
    problem[std::string("size_") + kAxes[i]] = sizes[i];
  }
  spec["problem"] = problem;
  spec["knobs"] = knobs;
  return spec;
}

ordered enum_knob(const std::string& name, const json& values, const json& preferred) {
  ordered knob{{"name", name}, {"kind", "enum"}, {"choices", ordered(values)}};
  knob["default"] =
      !preferred.is_null() && std::find(values.begin(), values.end(), preferred) != values.end()
          ? preferred
          : values.front();
  return knob;
}

bool has_knob(const ordered& knobs, const std::string& name) {
  for (const auto& knob : knobs) {
    if (knob.at("name") == name) return true;
  }
  return false;
}

// Kernel Tuner's launch shape: block from block_size_*, grid = ceil(size / divisors).
ordered default_launch(const ordered& knobs, std::size_t dims, const KtImportOptions& options) {
  ordered block = ordered::array(), grid = ordered::array();
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string block_knob = std::string("block_size_") + kAxes[i];
    block.push_back(has_knob(knobs, block_knob) ? block_knob : "1");
    if (i >= dims) continue;
    std::vector<std::string> divisors =
        i < options.grid_div.size() && !options.grid_div[i].empty()
            ? options.grid_div[i]
            : (has_knob(knobs, block_knob) ? std::vector<std::string>{block_knob}
                                           : std::vector<std::string>{});
    std::string product;
    for (const auto& d : divisors) product += (product.empty() ? "" : " * ") + d;
    const std::string size = std::string("size_") + kAxes[i];
    grid.push_back(product.empty() ? size : "cdiv(" + size + ", " + product + ")");
  }
  return {{"grid", grid}, {"block", block}};
}

std::string buffer_type(const std::string& t1_type, std::string_view origin) {
  static const std::map<std::string, std::string> types{
      {"float", "f32"}, {"double", "f64"},  {"int", "i32"},      {"int32", "i32"},
      {"int64", "i64"}, {"long", "i64"},    {"uint32", "u32"},   {"unsigned int", "u32"},
      {"half", "f16"},  {"float16", "f16"}, {"bfloat16", "bf16"}};
  const auto it = types.find(t1_type);
  if (it == types.end()) fail(origin, "argument type '" + t1_type + "' has no cutune buffer type");
  return it->second;
}

}  // namespace

ordered spec_from_kt_tune_params(std::string_view tune_params,
                                 const std::vector<std::string>& restrictions,
                                 const std::vector<long long>& problem_size,
                                 const KtImportOptions& options) {
  const std::string origin = "tune_params";
  json params;
  try {
    params = kt::evaluate_python(kt::parse_python(tune_params));
  } catch (const kt::PythonError& error) {
    fail(origin, error.what());
  }
  if (!params.is_object() || params.empty()) fail(origin, "expected a non-empty dict");
  // The dict's own order: nlohmann's json sorts keys, so read the order from the text's parse.
  const kt::PyNodePtr tree = kt::parse_python(tune_params);
  ordered knobs = ordered::array();
  for (std::size_t i = 0; i + 1 < tree->children.size(); i += 2) {
    const std::string name = kt::evaluate_python(tree->children[i]).get<std::string>();
    knobs.push_back(enum_knob(name, values_of(params.at(name), origin, name), json()));
  }
  ordered spec = skeleton("", options, json(problem_size), knobs, origin, "");
  ordered constraints = ordered::array();
  for (std::size_t i = 0; i < restrictions.size(); ++i) {
    constraints.push_back({{"name", "restriction_" + std::to_string(i + 1)},
                           {"expr", spec_expression(restrictions[i], origin,
                                                    "restriction " + std::to_string(i + 1))}});
  }
  spec["constraints"] = constraints;
  spec["launch"] = default_launch(knobs, problem_size.size(), options);
  return spec;
}

ordered spec_from_kt_cache(const json& cache, const KtImportOptions& options,
                           std::string_view origin) {
  if (!cache.is_object() || !cache.contains("tune_params_keys") || !cache.contains("tune_params")) {
    fail(origin, "not a Kernel Tuner cache (no tune_params_keys / tune_params)");
  }
  ordered knobs = ordered::array();
  for (const json& name : cache.at("tune_params_keys")) {
    const std::string knob = name.get<std::string>();
    if (!cache.at("tune_params").contains(knob)) fail(origin, "tune_params lacks " + knob);
    knobs.push_back(
        enum_knob(knob, values_of(cache.at("tune_params").at(knob), origin, knob), json()));
  }
  const json problem_size = cache.value("problem_size", json());
  ordered spec = skeleton(cache.value("kernel_name", ""), options, problem_size, knobs, origin, "");
  spec["launch"] =
      default_launch(knobs, problem_size.is_array() ? problem_size.size() : 1, options);
  return spec;
}

ordered spec_from_kt_t1(const json& t1, const KtImportOptions& options, std::string_view origin) {
  if (!t1.is_object() || !t1.contains("ConfigurationSpace") ||
      !t1.contains("KernelSpecification")) {
    fail(origin, "not a T1 input (no ConfigurationSpace / KernelSpecification)");
  }
  try {
    const json& space = t1.at("ConfigurationSpace");
    const json& kernel = t1.at("KernelSpecification");
    const std::string language = kernel.value("Language", "CUDA");
    if (language != "CUDA") fail(origin, "Language " + language + ": cutune imports CUDA kernels");
    ordered knobs = ordered::array();
    json names = json::object();  // every knob bound to its value list, for constant expressions
    for (const json& p : space.at("TuningParameters")) {
      const std::string name = p.at("Name").get<std::string>();
      const json values = values_of(p.at("Values"), origin, name);
      knobs.push_back(enum_knob(name, values, p.value("Default", json())));
      names[name] = values;
    }
    const json problem_size = kernel.value("ProblemSize", json());
    names["ProblemSize"] = problem_size.is_array() ? problem_size : json::array({problem_size});
    ordered spec = skeleton(kernel.value("KernelName", ""), options, problem_size, knobs, origin,
                            kernel.value("KernelFile", ""));
    ordered constraints = ordered::array();
    for (const json& condition : space.value("Conditions", json::array())) {
      const std::string text = condition.at("Expression").get<std::string>();
      constraints.push_back({{"name", "condition_" + std::to_string(constraints.size() + 1)},
                             {"expr", spec_expression(text, origin, "condition '" + text + "'")}});
    }
    spec["constraints"] = constraints;

    // Arguments: vectors become buffers in order; integer scalars become problem arguments
    // passed as the spec's scalars (cutune passes buffers first, then scalars).
    ordered buffers = ordered::array();
    ordered scalars = ordered::array();
    for (const json& a : kernel.value("Arguments", json::array())) {
      const std::string name = a.at("Name").get<std::string>();
      const std::string type = a.at("Type").get<std::string>();
      if (a.value("MemoryType", "Vector") == "Scalar") {
        const json value = a.value("FillValue", json(0));
        if (buffer_type(type, origin).front() == 'f' || !value.is_number()) {
          fail(origin,
               "argument " + name + ": cutune passes scalars as 64-bit integers, not " + type);
        }
        spec["problem"][name] = value.get<long long>();
        scalars.push_back(name);
        continue;
      }
      const json size =
          a.at("Size").is_string()
              ? kt::evaluate_python(kt::parse_python(a.at("Size").get<std::string>()), names)
              : a.at("Size");
      const std::string access = a.value("AccessType", "ReadOnly");
      const bool output = a.value("Output", 0) != 0 || access == "WriteOnly";
      ordered buffer{{"name", name},
                     {"type", buffer_type(type, origin)},
                     {"size", size},
                     {"role", output ? "output" : "input"}};
      if (!output) {
        buffer["fill"] =
            a.value("FillType", "Random") == "Constant" && a.value("FillValue", 1.0) == 0
                ? "zero"
                : "random";
      }
      buffers.push_back(buffer);
    }
    if (!scalars.empty()) spec["scalars"] = scalars;
    if (!buffers.empty()) spec["buffers"] = buffers;

    ordered block = ordered::array(), grid = ordered::array();
    const bool grid_in_blocks = kernel.value("GlobalSizeType", "CUDA") == "CUDA";
    for (const char* axis : {"X", "Y", "Z"}) {
      const auto text = [&](const char* field) {
        const json& v = kernel.at(field).at(axis);
        return spec_expression(v.is_string() ? v.get<std::string>() : v.dump(), origin,
                               std::string(field) + "." + axis);
      };
      block.push_back(text("LocalSize"));
      grid.push_back(grid_in_blocks
                         ? text("GlobalSize")
                         : "cdiv(" + text("GlobalSize") + ", " + text("LocalSize") + ")");
    }
    spec["launch"] = {{"grid", grid}, {"block", block}};
    const json shared = kernel.value("SharedMemory", json(0));
    if (shared.is_string() || (shared.is_number() && shared != 0)) {
      spec["launch"]["shared_memory"] =
          shared.is_string() ? spec_expression(shared.get<std::string>(), origin, "SharedMemory")
                             : shared.dump();
    }
    if (kernel.contains("CompilerOptions") && !kernel.at("CompilerOptions").empty()) {
      spec["compile"] = {{"flags", kernel.at("CompilerOptions")}};
    }
    return spec;
  } catch (const json::exception& error) {
    fail(origin, error.what());
  } catch (const kt::PythonError& error) {
    fail(origin, error.what());
  }
}

}  // namespace cutune
