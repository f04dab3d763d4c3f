// The one writer of generated C++ (`cutune export --header`, `export --dispatch`, `cutune
// dispatch`): every string that reaches generated code, in a literal or a comment, goes through
// string_literal(), and every name through checked_identifier(), so no stored or spec-given text
// (a family name, device, version, knob value) can end a comment, end a literal or add code.
//
// Callers: the store's exporter and the runtime's dispatch writer; the spec reader checks knob
// names with is_usable_name(). checked_identifier() and check_namespace() throw NameError; the rest
// throw nothing but std::bad_alloc.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cutune::cppgen {

// A name that cannot appear in generated C++ as it stands; the message names it and says why.
class NameError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// [A-Za-z_][A-Za-z0-9_]*: a C identifier (and a preprocessor macro name).
bool is_identifier(std::string_view text);
// A C++ keyword or alternative token, or a name generated code relies on (std).
bool is_reserved(std::string_view text);
// An identifier that generated C++ can use as a member or parameter name.
inline bool is_usable_name(std::string_view text) {
  return is_identifier(text) && !is_reserved(text);
}
// `name` when is_usable_name(name); otherwise throws NameError naming `what` (e.g. "knob") and
// the name, escaped.
const std::string& checked_identifier(const std::string& name, std::string_view what);

// Throws NameError, naming `who` (e.g. "export"), unless `name` is a namespace name such as
// "app::tuned": usable names joined by "::".
void check_namespace(std::string_view name, std::string_view who);

// Any text made into a usable identifier: other characters become '_', no "__", no leading '_',
// a reserved or digit-led result gets a "k_" prefix. Different texts can give the same result:
// unique_identifier() numbers the repeats.
std::string mangled_identifier(std::string_view text);
std::string unique_identifier(std::string_view text, std::set<std::string>& taken);

// A narrow string literal whose bytes are exactly `text`: printable ASCII stays, '"' and '\\' are
// escaped, '?' becomes "\?" (no trigraph such as ??/ can form), the '/' of "*/" and every other
// byte (control, NUL, non-ASCII) are octal escapes (which, unlike hex ones, end after three digits
// whatever follows). The result has no newline and ends with '"', so it is also safe in a comment.
std::string string_literal(std::string_view text);
// A std::string_view expression of `text` that keeps embedded NULs.
std::string string_view_literal(std::string_view text);

std::string double_literal(double value);         // always reads back as a double
std::string integer_literal(std::int64_t value);  // INT64_MIN included

}  // namespace cutune::cppgen
