// Reading a Kernel Tuner tune script (Python) without running Python: its statements are taken
// in file order, flattened out of functions, `with`, `if` and `try` (the bodies of `for` and
// `while` loops are skipped), up to its first tune_kernel() call. Assignments bind values of the
// Python slice (python_expression.hpp) plus what a tune script builds: numpy arrays (their dtype,
// element count and fill, never their data), numpy scalars, files opened for their source, and
// run_kernel() calls (a reference kernel). Internal to cutune_kt (kt_script.cpp).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "kt/python_expression.hpp"

namespace cutune::kt {

// What the statements before the call bound.
struct ScriptScope {
  nlohmann::json names = nlohmann::json::object();  // values; a failed one {"unknown": why}
  std::map<std::string, PyNodePtr> expressions;     // each name's last assigned expression
  std::map<std::string, std::vector<std::string>> key_order;  // a dict's keys as inserted
  std::map<std::string, std::string> scalar_dtypes;           // names bound to numpy scalars
};

struct ScriptCall {
  int line = 0;
  PyNodePtr call;  // the tune_kernel call (PyNode::Kind::call)
};

// Values a tune script builds, as the evaluator's JSON:
//   {"array": {"dtype": "float32", "count": N, "fill": "random" | "zero"}}
//   {"file": PATH} (open()), {"source_file": PATH} (its .read())
//   {"run_output": I, "run": {...}} per argument of a run_kernel() call
// numpy scalars are plain numbers (their dtype is in ScriptScope::scalar_dtypes).
PythonHooks script_hooks();

// The dtype a numpy scalar constructor call gives ("numpy.int32(n)" -> "int32"), else empty.
std::string scalar_dtype_of(const PyNode& node, const ScriptScope& scope);

// Runs the statements; throws PythonError ("origin: no tune_kernel() call") when none is found.
ScriptCall run_tune_script(std::string_view text, std::string_view origin, ScriptScope& scope);

// The value of an expression in the script's scope; throws PythonError (an unknown name's
// reason included).
nlohmann::json script_value(const PyNodePtr& node, const ScriptScope& scope);

}  // namespace cutune::kt
