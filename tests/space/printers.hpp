// Lets googletest print values and configs as JSON in failure messages instead of raw bytes.
#pragma once

#include <ostream>

#include "cutune/config.hpp"
#include "cutune/value.hpp"

namespace cutune {

inline void PrintTo(const Value& value, std::ostream* os) { *os << value.to_string(); }
inline void PrintTo(const Config& config, std::ostream* os) { *os << config.to_string(); }

}  // namespace cutune
