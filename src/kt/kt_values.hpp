// How values look in Kernel Tuner's files: the text of a cache key and the problem size. Internal
// to cutune_kt (kt_export.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cutune::kt {

// A knob value as Kernel Tuner's files hold it. A list-valued knob (a permutation, a list)
// becomes the text of the Python tuple, "(0, 2, 1)": Kernel Tuner builds sets of configs and
// python-constraint domains from these values, and a JSON list read back is an unhashable Python
// list (kernel_tuner.tune_cache fails on it); the text is also what the cache key shows.
nlohmann::json kt_value(const nlohmann::json& value);

// Python's str() of a knob value, as Kernel Tuner joins a config into its cache key: a list-valued
// knob (a permutation, a list) is a tuple there, the only sequence Kernel Tuner can hash, so
// [0, 2, 1] is "(0, 2, 1)" and its elements are repr()'d as Python does ("('a', 'b')").
std::string python_str(const nlohmann::json& value);

// The problem as Kernel Tuner's problem_size: the values of size_x, size_y, size_z when the
// problem has them, else every argument's value in `order` (the spec's problem order; empty or
// incomplete: the key's, which is sorted by name). One integer alone is an integer, several a
// list; a problem with any value that is not an integer (dtype=bf16) stays the key's text, which
// the cache schema allows and Kernel Tuner compares as it is.
nlohmann::json problem_size(const std::string& canonical_problem,
                            const std::vector<std::string>& order);

}  // namespace cutune::kt
