#include "write_file.hpp"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace cutune::cli {

void write_file(const std::filesystem::path& path, const std::string& text) {
  const auto partial = std::filesystem::path(path.string() + ".partial");
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      throw std::runtime_error(
          fmt::format("cannot write {}: {}", partial.string(), std::strerror(errno)));
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::filesystem::remove(partial, error);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), error.message()));
  }
}

}  // namespace cutune::cli
