// Helpers shared by the CUDA backend's CPU-side tests.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cutune/cuda.hpp"
#include "cutune/cuda/compile.hpp"
#include "cutune/spec.hpp"

namespace cutune::cuda::testing {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::filesystem::path example(const std::string& name) {
  return std::filesystem::path(CUTUNE_EXAMPLES_DIR) / name;
}

inline CubinCompiler::Options compiler_options(
    const std::filesystem::path& cache_dir,
    std::chrono::milliseconds limit = std::chrono::seconds(120)) {
  CubinCompiler::Options options;
  options.cache_dir = cache_dir;
  options.time_limit = limit;
  return options;
}

// A fresh folder per test, removed at the end.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ =
        std::filesystem::temp_directory_path() /
        ("cutune-cuda-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `spec` written into `dir` as spec.json with its kernel `source` as `source_name`, loaded by the
// spec loader.
inline KernelSpec written_spec(const TempDir& dir, const std::string& source_name,
                               const char* source, const char* spec) {
  std::ofstream(dir.path() / source_name) << source;
  std::ofstream(dir.path() / "spec.json") << spec;
  return load_spec(dir.path() / "spec.json");
}

// An evaluator's options over the stand-in worker, with a compile cache of its own in `dir`.
inline CudaOptions stand_in_options(const TempDir& dir) {
  CudaOptions options;
  options.cache_dir = dir.path() / "cache";
  options.worker = CUTUNE_FAKE_WORKER;
  return options;
}

}  // namespace cutune::cuda::testing
