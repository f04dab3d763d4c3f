// What the readers of a tune_kernel() call share (kt_script.cpp, kt_script_arguments.cpp).
// Internal to cutune_kt.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/kernel_tuner.hpp"
#include "kt/tune_script.hpp"

namespace cutune::kt {

// Where the call is and what the script bound before it; errors name the place.
struct Context {
  std::string where;  // "script.py:41"
  const ScriptScope& scope;
  [[noreturn]] void fail(const std::string& what) const {
    throw KernelTunerError(where + ": " + what);
  }
  nlohmann::json value(const PyNodePtr& node, const std::string& what) const {
    try {
      return script_value(node, scope);
    } catch (const PythonError& error) {
      fail(what + ": " + error.what());
    }
  }
  std::string expression(const nlohmann::json& python, const std::string& what) const {
    try {
      return python.is_number() ? python.dump()
                                : to_spec_expression(parse_python(python.get<std::string>()));
    } catch (const std::exception& error) {
      fail(what + ": " + error.what());
    }
  }
};

// The kernel's arguments (`arguments`, with `answer` and `cmem_args`) as the spec's buffers,
// arguments, constants and check. Without an answer, the arrays the kernel's signature in
// `kernel_source` (none: unread) lets it write are inouts, checked against the default config.
void add_arguments(nlohmann::ordered_json& spec, const std::map<std::string, PyNodePtr>& args,
                   const Context& c, bool cpu, const KtImportOptions& options,
                   const std::optional<std::string>& kernel_source,
                   std::vector<std::string>& notes);

// Per parameter of the function or kernel `name` declared in `source` (C, C++ or CUDA), whether
// it points to const data (`const float*`, `float const*`; not `float* const`); none when no
// declaration of that name is found.
std::optional<std::vector<bool>> const_pointer_parameters(std::string_view source,
                                                          const std::string& name);

}  // namespace cutune::kt
