// Helpers shared by the store tests and the command-line tests: a private temporary folder,
// running a command, reading a file, and sample results.
#pragma once

#include <fmt/core.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cutune/store.hpp"

namespace cutune::testing {

// A fresh folder, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cutune-store-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int status = -1;     // the exit status; -1 when the command was killed by a signal
  std::string output;  // stdout, and stderr unless the command redirects it or keep_stderr_apart
};

// Runs a shell command and collects what it prints.
inline CommandResult run_command(const std::string& command, bool keep_stderr_apart = false) {
  FILE* pipe = popen((keep_stderr_apart ? command : command + " 2>&1").c_str(), "r");
  CommandResult result;
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (std::size_t got = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, got);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The whole content of a file; empty when it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline TuningKey gemm_key(const std::string& problem = "m=2048,n=4096,k=4096,dtype=bf16") {
  return {"gemm", "src-1a2b", problem, "NVIDIA H200 sm_90", "nvcc 13.0, driver 580"};
}

inline StoredResult timed(const TuningKey& key, int block_m, double time_ms,
                          const std::string& tune_id = "tune-1") {
  StoredResult result;
  result.key = key;
  result.config_hash = fmt::format("cfg-{}", block_m);
  result.config_json =
      fmt::format(R"({{"block_m": {}, "swizzle": true, "layout": "row"}})", block_m);
  result.measurement.outcome = Outcome::ok;
  result.measurement.time_ms = time_ms;
  result.measurement.iqr_spread = 0.005;
  result.measurement.spread = 0.02;
  result.measurement.min_ms = time_ms * 0.99;
  result.measurement.max_ms = time_ms * 1.01;
  result.measurement.repetitions = 100;
  result.measurement.compile_s = 1.5;
  result.measurement.max_rel_error = 1e-3;
  result.measurement.device = 1;
  result.measurement.device_name = "NVIDIA H200";
  result.tune_id = tune_id;
  result.timestamp = 1.8e9;
  return result;
}

inline StoredResult failed(const TuningKey& key, int block_m, Outcome outcome,
                           const std::string& detail) {
  StoredResult result = timed(key, block_m, 0.0);
  result.measurement = Measurement{};
  result.measurement.outcome = outcome;
  result.measurement.detail = detail;
  return result;
}

}  // namespace cutune::testing
