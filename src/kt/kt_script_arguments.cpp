// A tune_kernel() call's `arguments`, `answer` and `cmem_args` -> the spec's buffers, arguments,
// constants and check (script_context.hpp); without an answer, the arrays the kernel may write
// are inouts, checked against the default config.
#include <map>
#include <set>

#include "kt/script_context.hpp"

namespace cutune::kt {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

// The elements' expressions of a list: a literal's, or those of the literal a name was bound to.
std::vector<PyNodePtr> elements(const PyNodePtr& node, const Context& c) {
  if (node->kind == PyNode::Kind::list) return node->children;
  if (node->kind == PyNode::Kind::name && c.scope.expressions.contains(node->text)) {
    return elements(c.scope.expressions.at(node->text), c);
  }
  return {};
}

std::string buffer_type(const std::string& dtype, const Context& c, const std::string& what) {
  static const std::map<std::string, std::string> types{
      {"float32", "f32"}, {"float64", "f64"},   {"int32", "i32"},
      {"int64", "i64"},   {"uint32", "u32"},    {"uint8", "u8"},
      {"float16", "f16"}, {"complex64", "f32"}, {"complex128", "f64"}};
  const auto found = types.find(dtype);
  if (found == types.end()) c.fail(what + ": numpy dtype " + dtype + " has no cutune buffer type");
  return found->second;
}

std::string scalar_type(const std::string& dtype, const Context& c, const std::string& what) {
  static const std::map<std::string, std::string> types{{"float32", "f32"}, {"float64", "f64"},
                                                        {"int32", "i32"},   {"int64", "i64"},
                                                        {"uint32", "u32"},  {"uint64", "u64"}};
  const auto found = types.find(dtype);
  if (found == types.end()) c.fail(what + ": numpy scalar " + dtype + " has no cutune type");
  return found->second;
}

ordered buffer_of(const std::string& name, const json& array, const Context& c,
                  const std::string& what) {
  const json& a = array.at("array");
  const std::string dtype = a.at("dtype");
  const long long count = a.at("count").get<long long>() * (dtype.starts_with("complex") ? 2 : 1);
  if (count < 1) c.fail(what + ": an empty array");
  return {{"name", name},
          {"type", buffer_type(dtype, c, what)},
          {"size", count},
          {"role", "input"},
          {"fill", a.at("fill")}};
}

// A name for the value of expression `node`: its variable's name, unique among `taken`.
std::string name_for(const PyNode& node, const std::string& fallback,
                     std::set<std::string>& taken) {
  const std::string base =
      node.kind == PyNode::Kind::name && node.text.find('.') == std::string::npos ? node.text
                                                                                  : fallback;
  std::string name = base;
  for (int i = 2; taken.contains(name); ++i) name = base + "_" + std::to_string(i);
  taken.insert(name);
  return name;
}

ordered& buffer_named(ordered& buffers, const std::string& name) {
  for (auto& buffer : buffers) {
    if (buffer.at("name") == name) return buffer;
  }
  throw std::logic_error("no buffer " + name);
}

// Without an answer nothing says which arrays are outputs: each one the kernel's signature lets it
// write (every one, when the signature cannot be read) becomes an inout, filled as the script
// fills it and compared with what the default config computes from the same inputs.
void mark_inouts(ordered& buffers, const std::vector<std::string>& buffer_of_argument,
                 const std::string& entry, const std::optional<std::string>& kernel_source,
                 std::vector<std::string>& notes) {
  const auto read_only =
      kernel_source ? const_pointer_parameters(*kernel_source, entry) : std::nullopt;
  const bool known = read_only && read_only->size() == buffer_of_argument.size();
  std::string inouts;
  for (std::size_t i = 0; i < buffer_of_argument.size(); ++i) {
    if (buffer_of_argument[i].empty() || (known && (*read_only)[i])) continue;
    buffer_named(buffers, buffer_of_argument[i])["role"] = "inout";
    inouts += (inouts.empty() ? "" : ", ") + buffer_of_argument[i];
  }
  if (inouts.empty()) return;
  notes.push_back(
      (known ? "no answer: the arrays " + entry + "'s signature lets it write (" + inouts + ")"
             : "no answer, and no signature of " + entry + " read from its source: every array (" +
                   inouts + ")") +
      " are inouts, every config checked against the default config's results");
}

}  // namespace

void add_arguments(ordered& spec, const std::map<std::string, PyNodePtr>& args, const Context& c,
                   bool cpu, const KtImportOptions& options,
                   const std::optional<std::string>& kernel_source,
                   std::vector<std::string>& notes) {
  const std::vector<PyNodePtr> nodes = elements(args.at("arguments"), c);
  const json values = c.value(args.at("arguments"), "arguments");
  if (!values.is_array() || values.size() != nodes.size()) {
    c.fail("arguments: expected a list (written in the script as one)");
  }
  ordered buffers = ordered::array(), arguments = ordered::array();
  std::set<std::string> taken;
  std::vector<std::string> buffer_of_argument(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string what = "argument " + std::to_string(i);
    const json& v = values[i];
    if (v.is_object() && v.contains("array")) {
      const std::string name = name_for(*nodes[i], "arg" + std::to_string(i), taken);
      buffers.push_back(buffer_of(name, v, c, what + " (" + name + ")"));
      arguments.push_back({{"buffer", name}});
      buffer_of_argument[i] = name;
    } else if (v.is_number()) {
      const std::string dtype = scalar_dtype_of(*nodes[i], c.scope);
      if (dtype.empty()) {
        c.fail(what + ": a Python number; Kernel Tuner passes numpy scalars (numpy.int32(n))");
      }
      const std::string name = name_for(*nodes[i], "arg" + std::to_string(i), taken);
      arguments.push_back({{"name", name}, {"type", scalar_type(dtype, c, what)}, {"value", v}});
    } else {
      c.fail(what + ": neither a numpy array nor a numpy scalar: " + v.dump().substr(0, 80));
    }
  }

  // answer: outputs to compare, computed in Python or by a run_kernel() reference.
  std::optional<json> reference_run;
  std::vector<std::size_t> python_answers;
  json answer;
  try {
    if (args.contains("answer")) answer = c.value(args.at("answer"), "answer");
  } catch (const KernelTunerError& error) {
    notes.push_back(std::string(error.what()) + ": read as no answer");
  }
  if (answer.is_null()) {
    const std::string entry = spec.at("entry").get<std::string>();
    mark_inouts(buffers, buffer_of_argument, entry.substr(0, entry.find('<')), kernel_source,
                notes);
  }
  {
    if (!answer.is_null() && (!answer.is_array() || answer.size() != values.size())) {
      c.fail("answer: expected a list as long as the arguments (None for inputs)");
    }
    for (std::size_t i = 0; answer.is_array() && i < answer.size(); ++i) {
      if (answer[i].is_null()) continue;
      if (buffer_of_argument[i].empty()) c.fail("answer " + std::to_string(i) + ": a scalar");
      ordered& buffer = buffer_named(buffers, buffer_of_argument[i]);
      buffer["role"] = "output";
      buffer.erase("fill");
      if (answer[i].is_object() && answer[i].contains("run_output")) {
        if (reference_run && *reference_run != answer[i].at("run")) {
          c.fail("answer: outputs of two run_kernel() calls");
        }
        reference_run = answer[i].at("run");
      } else {
        python_answers.push_back(i);
      }
    }
  }
  if (reference_run && !python_answers.empty()) {
    c.fail("answer: outputs of run_kernel() and computed in Python together");
  }
  if (reference_run) {
    ordered check{{"entry", reference_run->at("kernel_name")}};
    ordered config = ordered::object();
    const json params = reference_run->value("params", json::object());
    for (const auto& [name, value] : params.items()) {
      bool knob = false;
      for (const auto& k : spec.at("knobs")) knob = knob || k.at("name") == name;
      if (knob) {
        config[name] = value;
      } else {
        notes.push_back("run_kernel parameter " + name +
                        " is not tuned: the reference compiles "
                        "without it");
      }
    }
    if (!config.empty()) check["config"] = config;
    spec["check_run"] = *reference_run;  // the launch is added with the kernel's (kt_script.cpp)
    spec["check"] = check;
  } else if (!python_answers.empty() && !options.reference.empty()) {
    spec["check"] = {{"entry", options.reference}};
  } else if (!python_answers.empty()) {
    notes.push_back("answer " + std::to_string(python_answers.front()) +
                    " is computed in Python: the outputs are checked against the default "
                    "config's; pass --reference with a reference function of the kernel's source "
                    "to check them against it");
  }
  if (args.contains("atol") && spec.contains("check")) {
    spec["check"]["tolerance"] = c.value(args.at("atol"), "atol");
    notes.push_back("atol becomes the check's tolerance on the normwise relative error");
  }

  // cmem_args: each symbol filled from an argument's buffer, or from an array of its own.
  if (args.contains("cmem_args")) {
    const json cmem = c.value(args.at("cmem_args"), "cmem_args");
    if (cpu && !cmem.is_null()) c.fail("cmem_args: a C kernel has no constant memory");
    const std::vector<PyNodePtr> pairs = [&] {
      const PyNodePtr& node = args.at("cmem_args");
      if (node->kind == PyNode::Kind::dict) return node->children;
      const auto bound = c.scope.expressions.find(node->text);
      return node->kind == PyNode::Kind::name && bound != c.scope.expressions.end() &&
                     bound->second->kind == PyNode::Kind::dict
                 ? bound->second->children
                 : std::vector<PyNodePtr>{};
    }();
    ordered constants = ordered::array();
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
      const std::string symbol = c.value(pairs[i], "cmem_args key").get<std::string>();
      const json array = c.value(pairs[i + 1], "cmem_args['" + symbol + "']");
      if (!array.is_object() || !array.contains("array")) {
        c.fail("cmem_args['" + symbol + "']: expected a numpy array");
      }
      std::string buffer;
      const PyNode& value = *pairs[i + 1];
      for (std::size_t a = 0; a < nodes.size(); ++a) {
        if (value.kind == PyNode::Kind::name && nodes[a]->kind == PyNode::Kind::name &&
            nodes[a]->text == value.text) {
          buffer = buffer_of_argument[a];
        }
      }
      if (buffer.empty()) {
        buffer = name_for(value, "cmem_" + symbol, taken);
        buffers.push_back(buffer_of(buffer, array, c, "cmem_args['" + symbol + "']"));
      }
      constants.push_back({{"symbol", symbol}, {"buffer", buffer}});
    }
    if (!constants.empty()) spec["constants"] = constants;
  }
  spec["buffers"] = buffers;
  spec["arguments"] = arguments;
}

}  // namespace cutune::kt
