// The GEMM runtime family's driver-free part: the compile path.
#include "gemm/gemm_cubins.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "eval/backend_support.hpp"
#include "gemm/gemm_space.hpp"

namespace cutune {
namespace runtime {

std::filesystem::path compiled_file(const std::shared_future<cuda::CompileResult>& future,
                                    const std::string& family, const Config& config,
                                    const Problem& problem) {
  const cuda::CompileResult& result = future.get();
  if (!result.ok()) {
    throw std::runtime_error(fmt::format(
        "{} config {} does not compile for {}: {}", family, config.to_string(), problem.canonical(),
        eval::compile_failure_detail(result.log, result.log_file)));
  }
  return result.cubin;
}

GemmCubins::GemmCubins(GemmCompileOptions options) : options_(std::move(options)) {
  GemmCompiler& first = compiler_for(resolve_gemm_problem(gemm_problem(2048, 4096, 4096)));
  version_ = first.source_version();
  toolchain_ = first.toolchain();
}

GemmCompiler& GemmCubins::compiler_for(const Problem& problem) {
  const gemm::GemmProblem shape = to_gemm_problem(problem);
  const std::pair<int, int> key{static_cast<int>(shape.dtype), static_cast<int>(shape.b_layout)};
  std::lock_guard lock(mutex_);
  auto it = compilers_.find(key);
  if (it == compilers_.end()) {
    it = compilers_.emplace(key, std::make_unique<GemmCompiler>(problem, options_)).first;
  }
  return *it->second;
}

std::filesystem::path GemmCubins::compile(const Config& config, const Problem& problem) {
  GemmCompiler& compiler = compiler_for(problem);
  std::shared_future<cuda::CompileResult> future;
  {
    std::lock_guard lock(mutex_);  // submit() is not documented as thread-safe
    future = compiler.submit(config);
  }
  return compiled_file(future, "gemm", config, problem);
}

}  // namespace runtime

}  // namespace cutune
