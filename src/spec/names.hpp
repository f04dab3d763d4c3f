// The names a spec derives from knob values, shared by expressions and preprocessor definitions.
#pragma once

#include <string>

namespace cutune::spec {

// A C identifier (and muparser name): [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(const std::string& text);

}  // namespace cutune::spec
