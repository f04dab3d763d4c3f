// Problem texts as cutune writes them ("k=512,m=512,n=512,dtype=bf16"), parsed without the space
// library: the lookup runtime must not link it. Values are read as Problem::parse reads them
// (numbers and booleans as JSON, anything else as a string) and written as Problem::canonical
// writes them, so that a problem typed in any order finds the key the store wrote.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutune::lookup {

using ProblemArgs = std::map<std::string, nlohmann::json, std::less<>>;

// Throws LookupError for an item that is not name=value, or a repeated name.
ProblemArgs parse_problem(std::string_view text);
std::string canonical_problem(const ProblemArgs& args);

// log_feature (runtime/log_shape.hpp) of each named numeric argument; nullopt when one is missing
// or not a number.
std::optional<std::vector<double>> log_point(const ProblemArgs& args,
                                             const std::vector<std::string>& names);
std::vector<std::string> numeric_names(const ProblemArgs& args);
// Same argument names and equal non-numeric arguments: shapes one config can stand in for.
bool same_kind(const ProblemArgs& a, const ProblemArgs& b);

}  // namespace cutune::lookup
