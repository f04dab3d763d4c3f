#include "gemm_fp8/gemm_fp8_compiler.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "eval/files.hpp"
#include "gemm/gemm_evaluator.hpp"
#include "hash/content_hash.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// C++17 as the bf16 family (nvcc 13's front end fails on some of gcc 12's C++20 headers);
// NDEBUG keeps CUTLASS's device asserts, whose calls serialize wgmma, out of the kernel; CUTLASS
// calls constexpr host functions from device code.
const std::vector<std::string> kNvccFlags = {"-std=c++17", "-O3", "-DNDEBUG",
                                             "--expt-relaxed-constexpr"};

fs::path setting(const fs::path& given, const char* variable, const char* built_in) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? fs::path(value) : fs::path(built_in);
}

// The text nvcc compiles: the rules and the C interface ahead of the kernel (it skips each
// include once defined), so that a compile in a scratch folder finds them and the version covers
// them.
std::string compiled_text(const fs::path& source) {
  const fs::path folder = source.parent_path().parent_path();
  return eval::read_file(folder / "gemm_fp8_rules.hpp") +
         eval::read_file(folder / "gemm_fp8_abi.hpp") + "#line 1 \"" + source.filename().string() +
         "\"\n" + eval::read_file(source);
}

std::string version_of(const std::string& text) {
  return hash::StoredVersionHash().field(text).hex();
}

}  // namespace

struct Fp8Compiler::State {
  gemm_fp8::Scaling scaling;
  GemmCompileOptions options;
  std::string text;
  std::unique_ptr<cuda::CubinCompiler> compiler;
};

Fp8Compiler::Fp8Compiler(gemm_fp8::Scaling scaling, GemmCompileOptions options)
    : state_(std::make_unique<State>()) {
  options.source = setting(options.source, "CUTUNE_GEMM_FP8_SOURCE", CUTUNE_GEMM_FP8_DEVICE_SOURCE);
  state_->compiler = gemm_family_compiler(options);
  state_->scaling = scaling;
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
  for (const std::string& define : gemm_fp8::compile_defines(config, state_->scaling)) {
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

std::string Fp8Compiler::source_version() const { return version_of(state_->text); }

std::string gemm_fp8_source_version(const GemmCompileOptions& options) {
  return version_of(compiled_text(
      setting(options.source, "CUTUNE_GEMM_FP8_SOURCE", CUTUNE_GEMM_FP8_DEVICE_SOURCE)));
}

}  // namespace cutune
