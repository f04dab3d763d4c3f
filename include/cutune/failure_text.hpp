// What a person needs from a failed measurement's detail: the line that says what went wrong (a
// compiler's first error, not its "In function ..." preamble) and where the full log is kept.
#pragma once

#include <string>
#include <string_view>

namespace cutune::report {

// The first line that reports an error ("error:", "fatal error:", NVRTC's "error :"), else the
// first line that is not blank; trimmed. Empty for an empty detail.
std::string first_error_line(std::string_view detail);

// The path of the full compiler log a compile failure's detail names ("(full log: PATH)"), else
// empty.
std::string full_log_path(std::string_view detail);

}  // namespace cutune::report
