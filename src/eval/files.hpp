// Whole-file reads for content hashing and logs, and writes that other threads and processes see
// whole or not at all (the compile cache is shared between tuners).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace cutune::eval {

// The file's bytes. Throws std::system_error naming the file when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::system_error(errno, std::generic_category(), "cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A name beside `final_path`, unique across the threads and processes sharing its folder, that
// keeps its extension (compilers pick the output kind from it).
inline std::filesystem::path temporary_path(const std::filesystem::path& final_path) {
  static std::atomic<unsigned long> counter{0};
  auto tmp = final_path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  tmp += final_path.extension();
  return tmp;
}

// Writes `text` to a temporary name and renames it onto `path`. Throws std::system_error naming
// the file when it cannot be written.
inline void write_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto tmp = temporary_path(path);
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out.flush()) {
      throw std::system_error(errno, std::generic_category(), "cannot write " + tmp.string());
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace cutune::eval
