// The slice of Python that Kernel Tuner descriptions are written in: `tune_params` value lists
// ("[16*i for i in range(1,9)]", "list(range(1, 5))", "[0, 1]"), `restrictions` strings
// ("block_size_x*block_size_y <= 1024 and tile % 2 == 0") and T1's launch sizes
// ("(4096 // block_size_x) // tile_size_x"). Parsed into a small tree that is either evaluated
// (value lists) or written as a cutune spec expression (muparser text: `and` -> &&, `//` ->
// floor(a / b), `**` -> ^, chained comparisons split). Anything else (lambdas, attribute access,
// `in`) is refused with a PythonError that quotes the text and the place.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cutune::kt {

class PythonError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct PyNode;
using PyNodePtr = std::shared_ptr<const PyNode>;

struct PyNode {
  enum class Kind {
    number,
    string,
    name,
    unary,
    binary,
    compare,
    boolean,
    call,
    list,
    dict,
    comprehension,
    index
  };
  Kind kind = Kind::number;
  nlohmann::json value = {};  // number (null for None), string
  // name (dotted: "numpy.float32"), operator, function ("numpy.zeros"; a method ".astype",
  // whose value is children[0])
  std::string text = {};
  std::vector<PyNodePtr> children = {};  // operands, arguments, elements, (key, value) pairs
  // compare: one operator per pair of operands; call: per argument its keyword, "*" for a
  // splat, empty for a positional one
  std::vector<std::string> ops = {};
  // comprehension: [children[0] for variable in children[1] (if children[2])]
  std::string variable = {};
};

// Throws PythonError for text outside the slice.
PyNodePtr parse_python(std::string_view text);

// The value of a string literal's body (between its quotes) as Python reads it: \n, \t, \\,
// quotes, \xhh, \uXXXX and octal escapes decoded, and an unknown escape ("\d" in a regular
// expression) kept whole, backslash included. Throws PythonError for a malformed \x or \u.
std::string python_unescape(std::string_view body);

// What a caller adds to the evaluator (a tune script's numpy and Kernel Tuner calls): each hook
// returns a value, or nothing to leave the case to the evaluator's own rules.
struct PythonHooks {
  // A call of a function (or of a method, its value first among `args`) that is not a builtin
  // or that the builtins refuse; `keywords` per argument as PyNode::ops.
  std::function<std::optional<nlohmann::json>(const std::string& function,
                                              const std::vector<nlohmann::json>& args,
                                              const std::vector<std::string>& keywords)>
      call;
  // A binary operator on operands the evaluator's arithmetic does not take (arrays, objects).
  std::function<std::optional<nlohmann::json>(const std::string& op, const nlohmann::json& a,
                                              const nlohmann::json& b)>
      arithmetic;
};

// Evaluates a constant expression: numbers, strings, lists, subscripts (of lists and of dicts by
// key); range(), list(), min(), max(), abs(), int(), float(), len(). `names` (an object) binds
// names, e.g. T1's ProblemSize and each knob to its value list. Throws PythonError.
nlohmann::json evaluate_python(const PyNodePtr& node,
                               const nlohmann::json& names = nlohmann::json::object(),
                               const PythonHooks& hooks = {});

// The expression as muparser text for a cutune spec. A name compared with a string literal is a
// string enum knob: `mode == 'fast'` becomes `mode == mode_fast` (the constant such a knob
// defines). Throws PythonError for what the spec language cannot say (lists, strings elsewhere).
std::string to_spec_expression(const PyNodePtr& node);

}  // namespace cutune::kt
