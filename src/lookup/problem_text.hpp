// Problem texts as cutune writes them ("k=512,m=512,n=512,dtype=bf16"): the one parser and the
// one writer of them. Problem::parse (src/space) and the lookup runtime both read through it, so a
// problem typed in any order finds the key the store wrote. It lives here, with nothing but
// nlohmann-json, because the lookup runtime must not link the space library.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutune::lookup {

using ProblemArgs = std::map<std::string, nlohmann::json, std::less<>>;

// Items "name=value" separated by commas, blanks around each part ignored; a value is an integer,
// else a real, else true/false, else text. Throws std::invalid_argument naming the item that is
// empty, not name=value, or a repeated name.
ProblemArgs parse_problem(std::string_view text);
// Sorted by name, "name=value" joined by commas; text values unquoted.
std::string canonical_problem(const ProblemArgs& args);

// log_feature (space/log_shape.hpp) of each named numeric argument; nullopt when one is missing
// or not a number.
std::optional<std::vector<double>> log_point(const ProblemArgs& args,
                                             const std::vector<std::string>& names);
std::vector<std::string> numeric_names(const ProblemArgs& args);
// Same argument names and equal non-numeric arguments: shapes one config can stand in for.
bool same_kind(const ProblemArgs& a, const ProblemArgs& b);

}  // namespace cutune::lookup
