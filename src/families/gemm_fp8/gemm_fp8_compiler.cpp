#include "gemm_fp8/gemm_fp8_compiler.hpp"

#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gemm/gemm_evaluator.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// C++17 as the bf16 family (nvcc 13's front end fails on some of gcc 12's C++20 headers);
// NDEBUG keeps CUTLASS's device asserts, whose calls serialize wgmma, out of the kernel; CUTLASS
// calls constexpr host functions from device code.
const std::vector<std::string> kNvccFlags = {"-std=c++17", "-O3", "-DNDEBUG",
                                             "--expt-relaxed-constexpr"};

// The kernel includes ../gemm_fp8_rules.hpp and ../gemm_fp8_abi.hpp.
std::string compiled_text(const fs::path& source) {
  return kernel_text(source, {"gemm_fp8_rules.hpp", "gemm_fp8_abi.hpp"});
}

}  // namespace

struct Fp8Compiler::State {
  gemm_fp8::LibraryKind kind;
  GemmCompileOptions options;
  std::string text;
  std::unique_ptr<cuda::CubinCompiler> compiler;
};

Fp8Compiler::Fp8Compiler(gemm_fp8::LibraryKind kind, GemmCompileOptions options)
    : state_(std::make_unique<State>()) {
  options.source =
      path_setting(options.source, "CUTUNE_GEMM_FP8_SOURCE", CUTUNE_GEMM_FP8_DEVICE_SOURCE);
  state_->compiler = gemm_family_compiler(options);
  state_->kind = kind;
  state_->text = compiled_text(options.source);
  state_->options = std::move(options);
}

Fp8Compiler::~Fp8Compiler() = default;

cuda::CompileRequest Fp8Compiler::request(const gemm_fp8::Fp8Config& config) const {
  cuda::CompileRequest r;
  r.source = state_->text;
  r.source_name = state_->options.source.filename().string();
  r.arch = state_->options.arch;
  r.compiler = cuda::CompilerKind::nvcc;
  r.shared_library = true;
  for (const std::string& define : gemm_fp8::compile_defines(config, state_->kind)) {
    const std::size_t equals = define.find('=');
    r.defines.emplace_back(define.substr(0, equals), define.substr(equals + 1));
  }
  r.include_dirs = {state_->options.cutlass_include};
  r.options = kNvccFlags;
  return r;
}

std::shared_future<cuda::CompileResult> Fp8Compiler::submit(const gemm_fp8::Fp8Config& config) {
  return state_->compiler->submit(request(config));
}

std::string Fp8Compiler::toolchain() {
  std::string text =
      state_->compiler->identity(cuda::CompilerKind::nvcc) + "; " + state_->options.arch;
  for (const std::string& flag : kNvccFlags) text += " " + flag;
  return text;
}

std::string Fp8Compiler::source_version() const { return kernel_text_version(state_->text); }

std::string gemm_fp8_source_version(const GemmCompileOptions& options) {
  return kernel_text_version(compiled_text(
      path_setting(options.source, "CUTUNE_GEMM_FP8_SOURCE", CUTUNE_GEMM_FP8_DEVICE_SOURCE)));
}

}  // namespace cutune
