// The one generated source of the CPU backend: a function of the fixed worker ABI that calls a
// kernel with its own parameter list (docs/spec-format.md, *Arguments*). It includes the kernel's
// source, so the kernel compiles as its author wrote it (C or C++, any linkage), and works as C
// and as C++ alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cutune::cppgen {

// The symbol every call shim defines: extern "C" void cutune_call(void** args, const long long*),
// args[i] pointing at the i-th parameter's value (a buffer's pointer, or a scalar).
inline constexpr std::string_view call_shim_symbol = "cutune_call";

// The shim's text. `parameters` are the kernel's in order: "buffer" (any pointer), or a scalar
// type "i32", "i64", "u32", "u64", "f32", "f64". `entry` may be qualified ("ns::f"). Throws
// NameError for an entry that is not a name, or a parameter kind outside that list.
std::string call_shim(std::string_view source_path, const std::string& entry,
                      const std::vector<std::string>& parameters);

}  // namespace cutune::cppgen
