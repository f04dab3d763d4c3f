// A kernel's symbol in an nvcc cubin, found by its plain name: nvcc, unlike NVRTC, reports no
// lowered names, and Kernel Tuner's kernels are seldom extern "C". A free function's C++ symbol
// starts with _Z, the name's length and the name; an extern "C" kernel's symbol is the name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cutune::cuda::cubin_symbols {

// A C identifier: a name nvcc's cubin can be searched for (no template arguments, no scope).
bool is_plain_name(std::string_view name);

// The one symbol of `image` (a cubin's bytes) that is the kernel `name`, or nullopt with `why`
// saying there is none, or several (overloads).
std::optional<std::string> entry_symbol(std::string_view image, std::string_view name,
                                        std::string& why);

}  // namespace cutune::cuda::cubin_symbols
