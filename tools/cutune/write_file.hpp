// The one way the commands write a file they produce (an export, a dispatch rule).
#pragma once

#include <filesystem>
#include <string>

namespace cutune::cli {

// Writes beside the target (path + ".partial") and renames over it, so that a build or a program
// reading the file never sees half of it. Throws std::runtime_error naming the file and the cause.
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace cutune::cli
