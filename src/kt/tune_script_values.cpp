// What a tune script builds besides plain values (tune_script.hpp): numpy arrays and scalars,
// opened files, run_kernel() results.
#include <cmath>
#include <set>

#include "kt/tune_script.hpp"

namespace cutune::kt {
namespace {

using json = nlohmann::json;

const std::set<std::string> dtypes{"float16", "float32",   "float64",   "int8",   "int16",
                                   "int32",   "int64",     "uint8",     "uint16", "uint32",
                                   "uint64",  "complex64", "complex128"};

// "numpy.float32", "np.float32", "float32" -> "float32"; else empty.
std::string dtype_name(const std::string& text) {
  const std::string last = text.substr(text.rfind('.') + 1);
  return dtypes.contains(last) ? last : "";
}

bool numpy_function(const std::string& name, std::string_view function) {
  const auto dot = name.rfind('.');
  return dot != std::string::npos && name.substr(dot + 1) == function &&
         (name.starts_with("numpy.") || name.starts_with("np."));
}

[[noreturn]] void fail(const std::string& what) { throw PythonError(what); }

long long element_count(const json& shape) {
  if (shape.is_number_integer()) return shape.get<long long>();
  if (shape.is_number()) return static_cast<long long>(shape.get<double>());
  if (!shape.is_array()) fail("an array shape must be numbers, got " + shape.dump());
  long long count = 1;
  for (const json& n : shape) count *= element_count(n);
  return count;
}

json array(const std::string& dtype, long long count, const std::string& fill) {
  return {{"array", {{"dtype", dtype}, {"count", count}, {"fill", fill}}}};
}

bool is_array(const json& v) { return v.is_object() && v.contains("array"); }

// The dtype= keyword or the given positional argument, else float64 (numpy's default).
std::string dtype_argument(const std::vector<json>& args, const std::vector<std::string>& keywords,
                           std::size_t position) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (keywords[i] == "dtype" || (keywords[i].empty() && i == position)) {
      if (!args[i].is_string() || dtype_name(args[i].get<std::string>()).empty()) {
        fail("unknown dtype " + args[i].dump());
      }
      return dtype_name(args[i].get<std::string>());
    }
  }
  return "float64";
}

std::optional<json> call(const std::string& name, const std::vector<json>& args,
                         const std::vector<std::string>& keywords) {
  const bool method = name.starts_with(".");
  const std::string last = name.substr(name.rfind('.') + 1);
  if (!method && (name.starts_with("numpy.random.") || name.starts_with("np.random."))) {
    if (last == "randn" || last == "rand" || last == "random" || last == "random_sample") {
      std::vector<json> shape;
      for (std::size_t i = 0; i < args.size(); ++i) {
        if (keywords[i].empty() || keywords[i] == "size") shape.push_back(args[i]);
      }
      return array("float64", element_count(shape), "random");
    }
  }
  if (!method && !dtype_name(name).empty() && args.size() == 1 && args[0].is_number()) {
    const std::string dtype = dtype_name(name);  // a numpy scalar: its value
    if (dtype.starts_with("float")) return args[0].get<double>();
    return static_cast<long long>(args[0].get<double>());
  }
  if (method && (last == "astype" || last == "view") && args.size() == 2 && is_array(args[0])) {
    json out = args[0];
    out["array"]["dtype"] = dtype_argument({args[1]}, {""}, 0);
    return out;
  }
  if (method && (last == "ravel" || last == "flatten" || last == "copy") && is_array(args[0])) {
    return args[0];
  }
  if (method && last == "read" && args.size() == 1 && args[0].contains("file")) {
    return json{{"source_file", args[0].at("file")}};
  }
  if (!method && name == "open" && !args.empty() && args[0].is_string()) {
    return json{{"file", args[0]}};
  }
  if (!method && (name == "OrderedDict" || name == "collections.OrderedDict" || name == "dict") &&
      args.empty()) {
    return json::object();
  }
  if (!method && (name == "run_kernel" || name.ends_with(".run_kernel"))) {
    // One output per kernel argument, each naming the run: an `answer` entry taken from it
    // makes the run's kernel the reference.
    const char* const positional[] = {"kernel_name", "kernel_source", "problem_size", "arguments",
                                      "params"};
    json run = json::object();
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string key = keywords[i].empty() && i < 5 ? positional[i] : keywords[i];
      if (key == "kernel_name" || key == "params" || key.starts_with("grid_div_"))
        run[key] = args[i];
    }
    json out = json::array();
    const json arguments = args.size() > 3 ? args[3] : json::array();
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      out.push_back({{"run_output", i}, {"run", run}});
    }
    return out;
  }
  if (method) return std::nullopt;
  if (numpy_function(name, "zeros") || numpy_function(name, "empty") ||
      numpy_function(name, "ones") || numpy_function(name, "full")) {
    if (args.empty()) fail(name + "() needs a shape");
    return array(dtype_argument(args, keywords, last == "full" ? 2 : 1), element_count(args[0]),
                 last == "zeros" || last == "empty" ? "zero" : "random");
  }
  if ((numpy_function(name, "zeros_like") || numpy_function(name, "empty_like") ||
       numpy_function(name, "ones_like") || numpy_function(name, "copy") ||
       numpy_function(name, "absolute") || numpy_function(name, "abs")) &&
      !args.empty() && is_array(args[0])) {
    json out = args[0];
    if (last == "zeros_like" || last == "empty_like") out["array"]["fill"] = "zero";
    return out;
  }
  if ((numpy_function(name, "array") || numpy_function(name, "asarray")) && !args.empty() &&
      args[0].is_array()) {
    return array(dtype_argument(args, keywords, 1), element_count(json(args[0].size())), "random");
  }
  if (numpy_function(name, "prod") && args.size() == 1) {
    double product = 1;
    for (const json& v : args[0]) product *= v.get<double>();
    return args[0].empty() || args[0][0].is_number_integer() ? json(static_cast<long long>(product))
                                                             : json(product);
  }
  if ((numpy_function(name, "ceil") || numpy_function(name, "floor") ||
       numpy_function(name, "sqrt")) &&
      args.size() == 1 && args[0].is_number()) {
    const double x = args[0].get<double>();
    return last == "ceil" ? std::ceil(x) : last == "floor" ? std::floor(x) : std::sqrt(x);
  }
  if ((numpy_function(name, "amin") || numpy_function(name, "amax") ||
       numpy_function(name, "min") || numpy_function(name, "max")) &&
      args.size() == 1 && args[0].is_array() && !args[0].empty()) {
    json best = args[0][0];
    for (const json& v : args[0]) {
      const bool lower = v.get<double>() < best.get<double>();
      if (lower == (last == "amin" || last == "min")) best = v;
    }
    return best;
  }
  return std::nullopt;
}

// Arithmetic with an array gives an array of its dtype and count (values computed in Python, so
// random as far as the spec can say).
std::optional<json> arithmetic(const std::string&, const json& a, const json& b) {
  const json& array_operand = is_array(a) ? a : b;
  if (!is_array(array_operand)) return std::nullopt;
  json out = array_operand;
  out["array"]["fill"] = "random";
  return out;
}

}  // namespace

PythonHooks script_hooks() { return {call, arithmetic}; }

std::string scalar_dtype_of(const PyNode& node, const ScriptScope& scope) {
  if (node.kind == PyNode::Kind::name) {
    const auto found = scope.scalar_dtypes.find(node.text);
    return found == scope.scalar_dtypes.end() ? "" : found->second;
  }
  if (node.kind == PyNode::Kind::call && node.children.size() == 1 && !node.text.starts_with(".")) {
    return dtype_name(node.text);
  }
  return "";
}

}  // namespace cutune::kt
