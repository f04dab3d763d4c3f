// The GEMM runtime family's compiler: configs of any problem to cubins through GemmCompiler (the
// tuner's compiler, so the same cubins and cache as `cutune tune gemm`), one GemmCompiler per
// (dtype, b_layout), the only problem arguments a cubin depends on. Needs nvcc and the CUTLASS
// headers, no GPU.
#pragma once

#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "cutune/config.hpp"
#include "cutune/problem.hpp"
#include "gemm/gemm_evaluator.hpp"

namespace cutune::runtime {

// The file `future`'s compile of `config` produced (a cubin, or the fp8 family's library). Throws
// std::runtime_error "`family` config ... does not compile for <problem>: <the compiler's log>".
std::filesystem::path compiled_file(const std::shared_future<cuda::CompileResult>& future,
                                    const std::string& family, const Config& config,
                                    const Problem& problem);

class GemmCubins {
 public:
  // Throws std::runtime_error when the kernel source or the CUTLASS headers are missing.
  explicit GemmCubins(GemmCompileOptions options);

  // The cubin of `config` for `problem` (compiled, or from the cache). Throws std::runtime_error
  // with the compiler's log when it does not compile. Thread-safe.
  std::filesystem::path compile(const Config& config, const Problem& problem);

  // The store key's family version (the kernel source's hash) and the compiler part of its
  // toolchain ("nvcc ...; sm_90a -std=c++17 -O3"), as GemmEvaluator writes them.
  const std::string& version() const { return version_; }
  const std::string& compiler_toolchain() const { return toolchain_; }
  const GemmCompileOptions& options() const { return options_; }

 private:
  GemmCompiler& compiler_for(const Problem& problem);

  GemmCompileOptions options_;
  std::mutex mutex_;
  std::map<std::pair<int, int>, std::unique_ptr<GemmCompiler>> compilers_;
  std::string version_;
  std::string toolchain_;
};

}  // namespace cutune::runtime
